"""Path spellings the linter needs many times per run, without ``os.path``'s Python-level
normalisation when the path is already in normal form."""

from __future__ import annotations

import os


def absolute(path: str) -> str:
    """``os.path.abspath(path)``; a path that is already absolute and normal (no empty,
    ``.`` or ``..`` component, no trailing separator) is returned as it is, without
    ``normpath``'s Python-level split and join (two calls per linted file)."""
    if (path[:1] == "/" and os.sep == "/" and os.altsep is None and "//" not in path
            and "/./" not in path and "/../" not in path
            and not path.endswith(("/", "/.", "/.."))):
        return path
    return os.path.abspath(path)
