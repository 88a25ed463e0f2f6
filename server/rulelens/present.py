"""How paths and sizes read to a person, shared by every surface (CLI, hovers, lenses).

Pure string work with no editor or terminal types, so ``rulelens chain``, ``rulelens
memory`` and the language server's views cannot drift apart in how they shorten a path
or round a size.
"""

from __future__ import annotations

import json
from typing import Any

from rulelens.agents.paths import display_path
from rulelens.agents.safeio import printable

__all__ = ["byte_size", "display_path", "json_text", "printable_data"]


def json_text(value: Any) -> str:
    """``value`` as indented JSON text that is valid UTF-8 (see :func:`printable_data`)."""
    return json.dumps(printable_data(value), ensure_ascii=False, indent=2) + "\n"


def printable_data(value: Any) -> Any:
    """``value`` (JSON-shaped: dicts, lists, strings, numbers) with every string made
    :func:`printable`, so the JSON text is valid UTF-8 whatever bytes a path held."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(k): printable_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(v) for v in value]
    return value


def byte_size(n: int) -> str:
    """``512 B``, ``1.5 KiB``, ``2.0 MiB``: binary units, one decimal above a KiB."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"
