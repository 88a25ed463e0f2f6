"""How paths and sizes read to a person, shared by every surface (CLI, hovers, lenses).

Pure string work with no editor or terminal types, so ``rulelens chain``, ``rulelens
memory`` and the language server's views cannot drift apart in how they shorten a path
or round a size.
"""

from __future__ import annotations

import os

from rulelens.agents.fs import is_within


def display_path(path: str, base: str | None = None) -> str:
    """Relative to ``base`` when inside it (``base`` itself is ``.``), ``~/...`` strictly
    under the home, else ``path`` unchanged (absolute paths stay absolute)."""
    if base and is_within(path, base):
        return os.path.relpath(path, base)
    home = os.path.expanduser("~")
    if path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path


def byte_size(n: int) -> str:
    """``512 B``, ``1.5 KiB``, ``2.0 MiB``: binary units, one decimal above a KiB."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"
