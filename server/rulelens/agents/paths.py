"""How a path is shown to people: relative to a base, ``~/…`` under the home, printable.

Ground floor (imports nothing else from ``rulelens``), so agent modules word their notes
with it; ``rulelens.present`` re-exports it for the shells.
"""

from __future__ import annotations

import os

from rulelens.agents.fs import is_within
from rulelens.agents.safeio import printable


def display_path(path: str, base: str | None = None) -> str:
    """Relative to ``base`` when inside it (``base`` itself is ``.``), ``~/...`` strictly
    under the home, else ``path`` unchanged (absolute paths stay absolute). Bytes of the
    name that are not UTF-8 read as ``\\xff`` (see :func:`safeio.printable`)."""
    if base and is_within(path, base):
        return printable(os.path.relpath(path, base))
    home = os.path.expanduser("~")
    if path.startswith(home + os.sep):
        return printable("~" + path[len(home):])
    return printable(path)
