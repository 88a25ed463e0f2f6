"""What a rule's commands name: ``package.json`` scripts and ``Makefile`` targets, read bounded.

Both files belong to the repository, so they are read like every file others control
(:mod:`rulelens.agents.safeio`: regular files only, never blocking, at most
:data:`~rulelens.agents.safeio.CONFIG_LIMIT`), and ``package.json`` has its nesting
scanned before ``json`` parses it (:mod:`rulelens.agents.bounded`). A 1 GiB sparse
``package.json`` is refused from its ``fstat`` without a byte read.

Each reader answers a set of names, ``None`` when the file cannot tell (it does not parse,
a Makefile includes others or has pattern rules), or a one-line reason it was skipped
(too large, nested too deeply, not a regular file), which the check reports.
"""

from __future__ import annotations

import re

from rulelens.agents import bounded, safeio

#: The most of a package.json or Makefile read: they are configuration, not data.
LIMIT = safeio.CONFIG_LIMIT
_TARGET = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)", re.MULTILINE)


def _read(path: str) -> bytes | str:
    """The file's bytes, or why it was skipped (one line)."""
    try:
        return safeio.read_bytes(path, LIMIT)
    except safeio.TooLargeError as exc:
        return (f"is too large ({exc.size} bytes; RuleLens reads at most {exc.limit}),"
                " skipped")
    except OSError as exc:
        return f"could not be read ({safeio.describe(exc)}), skipped"


def package_scripts(path: str) -> set[str] | str | None:
    """Script names of a ``package.json`` (``None``: it does not parse)."""
    data = _read(path)
    if isinstance(data, str):
        return data
    try:
        parsed = bounded.json_loads(data)
    except bounded.TooDeep as exc:
        return f"is nested deeper than {exc.limit} levels, skipped"
    except ValueError:
        return None
    scripts = parsed.get("scripts") if isinstance(parsed, dict) else None
    return set(scripts) if isinstance(scripts, dict) else set()


def make_targets(path: str) -> set[str] | str | None:
    """Targets a Makefile defines; ``None`` when it cannot be known (includes other files,
    or has pattern rules)."""
    data = _read(path)
    if isinstance(data, str):
        return data
    text = data.decode("utf-8", errors="replace")
    if re.search(r"^\s*-?include\s", text, re.MULTILINE):
        return None
    targets: set[str] = set()
    for m in _TARGET.finditer(text):
        for name in m.group(1).split():
            if "%" in name or "$" in name:
                return None
            targets.add(name)
    return targets
