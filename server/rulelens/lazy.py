"""Package names imported when first used (PEP 562), for packages whose ``__init__`` must
stay cheap: ``rulelens lint`` answering from its result cache imports ``rulelens.lint``
and ``rulelens.rules`` without their engines. Imports nothing from ``rulelens``."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: see rulelens.lint.replay
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def exports(package: dict[str, Any], where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` (its ``globals()``) that imports each name
    of ``where`` (name -> defining module) on first use and keeps it there."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        package[name] = value
        return value

    return __getattr__
