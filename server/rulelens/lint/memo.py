"""``cached_property`` without Python 3.11's per-class lock.

``functools.cached_property`` on 3.11 takes one RLock shared by every instance of a class
on each first access; the linter makes a few property reads per document on thousands of
documents, and that lock was measurable in ``bench/lint.py``. Python 3.12 dropped the lock
(it never made a value computed once per instance anyway); this is that behaviour: the
value is stored in the instance ``__dict__`` under the property's name, so later reads
never reach the descriptor and ``"name" in obj.__dict__`` still tells whether it was made.
Two threads racing on a first read may both compute it; every value here is a pure
function of the instance, so either result is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class cached_property(Generic[T]):
    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.attrname: str | None = None
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.attrname] = value  # type: ignore[index]
        return value
