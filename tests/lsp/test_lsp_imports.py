"""No import circle inside ``lsp/`` (issue 21): every ``import`` of another ``lsp`` module —
at the top, inside a function, or under ``TYPE_CHECKING`` — is an edge, and the graph has
no cycle. Features are typed against ``lsp/host.py``'s protocols instead of the server."""

from __future__ import annotations

import ast
from pathlib import Path

import rulelens.lsp

LSP = Path(rulelens.lsp.__file__).parent


def edges(source: str, modules: set[str]) -> set[str]:
    """The ``lsp`` modules one module's source imports, however it spells the import."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                mod = "rulelens.lsp" + (f".{mod}" if mod else "")
            if mod == "rulelens.lsp":
                found |= {a.name for a in node.names if a.name in modules}
            elif mod.startswith("rulelens.lsp."):
                found.add(mod.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names
                      if a.name.startswith("rulelens.lsp.")}
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def lsp_graph() -> dict[str, set[str]]:
    modules = {p.stem for p in LSP.glob("*.py")}
    return {p.stem: edges(p.read_text(encoding="utf-8"), modules) - {p.stem}
            for p in LSP.glob("*.py")}


def test_no_import_circle_inside_lsp() -> None:
    graph = lsp_graph()
    assert {"server", "memory", "memory_people", "host"} <= set(graph)
    assert cycles(graph) == []
    # The old circle's three edges back up are gone: features see protocols, not the server.
    assert "server" not in graph["memory"] | graph["memory_people"]
    assert "memory" not in graph["memory_people"]


def test_the_cycle_check_sees_a_planted_circle() -> None:
    """The check itself works, with each spelling of an import."""
    modules = {"a", "b", "c"}
    planted = {
        "a": edges("from rulelens.lsp import b\n", modules),
        "b": edges("def f():\n    from rulelens.lsp.c import X\n", modules),
        "c": edges("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    import rulelens.lsp.a\n", modules),
    }
    assert planted == {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    assert cycles(planted) == [["a", "b", "c"]]
