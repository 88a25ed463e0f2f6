"""Bounded YAML for frontmatter: size, nesting and alias-expansion guards before any value.

Every frontmatter reader uses it: lint's documents (:mod:`rulelens.lint.document`) and the
agents' own (:mod:`rulelens.agents.meta`: Claude, Copilot, Boost and the others).

``yaml.safe_load`` alone is not safe against hostile input: libyaml's composer recurses
once per nesting level in C (deep ``[[[[...`` can exhaust the stack, and the Python
fallback raises ``RecursionError``), and aliases let a few hundred bytes stand for billions
of nodes once a consumer walks the result. So: refuse oversized text, pre-scan the nesting
depth textually, compose (aliases stay shared nodes, cheap), count the *expanded* node
total over the node graph with memoisation (an alias inside its own anchor's node, a
cycle, is refused), and only then construct values.

Results carry node marks so checks can point at the exact key or value. Lines and columns
are 0-based and relative to the YAML text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class YamlProblem:
    message: str
    line: int
    column: int
    #: ``syntax`` (does not parse) or ``limit`` (refused by a guard).
    kind: str


@dataclass(frozen=True)
class YamlDoc:
    node: yaml.Node | None
    problem: YamlProblem | None


def _depth_scan(text: str, max_depth: int) -> YamlProblem | None:
    """Cheap upper bound on nesting: flow brackets plus block indentation levels."""
    # The scan's count never exceeds open brackets + lines (one indentation level each at
    # most) + dashes: when those C-level counts stay within the limit, it cannot fire.
    if (text.count("\n") + 1 + text.count("-") + text.count("[") + text.count("{")
            <= max_depth):
        return None
    flow = 0
    indents: list[int] = []
    for lineno, line in enumerate(text.split("\n")):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if flow == 0:
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
            # "- - - x" opens one block sequence per dash on the same line.
            dashes = 0
            rest = stripped
            while rest.startswith("- ") or rest == "-":
                dashes += 1
                rest = rest[2:].lstrip(" ")
            block = len(indents) + dashes
        else:
            block = len(indents)
        for col, ch in enumerate(line):
            if ch in "[{":
                flow += 1
                if flow + block > max_depth:
                    return YamlProblem(f"nested deeper than {max_depth} levels", lineno, col,
                                       "limit")
            elif ch in "]}" and flow > 0:
                flow -= 1
        if block > max_depth:
            return YamlProblem(f"nested deeper than {max_depth} levels", lineno, indent, "limit")
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _expanded_size(root: yaml.Node, max_nodes: int) -> tuple[yaml.Node, str] | None:
    """``(node, "recursive" | "large")`` for the first alias that refers to a node it is
    inside of, or the first node at which the expanded tree exceeds ``max_nodes``; else
    ``None``."""
    memo: dict[int, int] = {}
    #: Nodes whose children are still being counted: reaching one again is a cycle
    #: (``a: &a [*a]`` composes to a list that contains itself).
    open_nodes: set[int] = set()
    # Iterative post-order over the node graph; a node reached twice (alias) counts twice.
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            total = 1 + sum(memo[id(c)] for c in _children(node))
            if total > max_nodes:
                return node, "large"
            memo[key] = total
            continue
        if key in memo:
            continue
        if key in open_nodes:
            return node, "recursive"
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                return child, "recursive"
            if id(child) not in memo:
                stack.append((child, False))
    return None


def compose(text: str, *, max_bytes: int, max_depth: int, max_nodes: int) -> YamlDoc:
    """Compose one YAML document under the guards; never raises for bad input."""
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        return YamlDoc(None, YamlProblem(
            f"frontmatter is larger than {max_bytes} bytes; not parsed", 0, 0, "limit"))
    deep = _depth_scan(text, max_depth)
    if deep is not None:
        return YamlDoc(None, deep)
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or "invalid YAML"
        if exc.context:
            what = f"{what} ({exc.context})"
        return YamlDoc(None, YamlProblem(what, mark.line if mark else 0,
                                         mark.column if mark else 0, "syntax"))
    except yaml.YAMLError as exc:
        return YamlDoc(None, YamlProblem(str(exc).split("\n")[0], 0, 0, "syntax"))
    except RecursionError:
        return YamlDoc(None, YamlProblem("nested too deeply to parse", 0, 0, "limit"))
    except (ValueError, UnicodeError) as exc:  # e.g. lone surrogates from undecodable bytes
        return YamlDoc(None, YamlProblem(f"unreadable characters ({exc})", 0, 0, "syntax"))
    if node is None:
        return YamlDoc(None, None)
    if "&" not in text and 3 * len(text) + 3 <= max_nodes:
        # No anchor, so no alias composed (an undefined one is an error above): the nodes
        # form a tree, and a tree has at most ~2 nodes per source character (an indicator
        # such as ``?``, ``:`` or ``-`` implies at most a collection and an empty scalar).
        # It cannot exceed the bound, so the walk is skipped for ordinary frontmatter.
        return YamlDoc(node, None)
    found = _expanded_size(node, max_nodes)
    if found is not None:
        big, why = found
        what = ("an alias refers to a node it is inside of (a recursive alias); not parsed"
                if why == "recursive" else
                f"aliases expand to more than {max_nodes} nodes (a YAML bomb?); not parsed")
        return YamlDoc(None, YamlProblem(what, big.start_mark.line, big.start_mark.column,
                                         "limit"))
    return YamlDoc(node, None)


_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"


def construct(node: yaml.Node) -> Any:
    """Python value of an already-bounded node (SafeConstructor semantics)."""
    if node.tag == _STR and isinstance(node, yaml.ScalarNode):
        # What SafeConstructor.construct_yaml_str returns, without building a constructor
        # per key and value (most frontmatter keys and values are plain strings).
        return node.value
    if node.tag == _SEQ and isinstance(node, yaml.SequenceNode) and all(
            c.tag == _STR and isinstance(c, yaml.ScalarNode) for c in node.value):
        # A list of plain strings (``paths:``, ``globs:``): construct_yaml_seq's list of
        # construct_yaml_str values, again without a constructor.
        return [c.value for c in node.value]
    try:
        return yaml.constructor.SafeConstructor().construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError):
        return None
