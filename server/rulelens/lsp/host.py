"""What the server's features need from the server and from each other, as protocols.

:mod:`rulelens.lsp.memory` and :mod:`rulelens.lsp.memory_people` are typed against these
instead of importing :mod:`rulelens.lsp.server` or each other, so ``lsp/`` has no import
circle (``tests/lsp/test_lsp_imports.py`` parses every import, ``TYPE_CHECKING`` ones too).
:class:`~rulelens.lsp.server.RuleLensServer` is a :class:`Host`;
:class:`~rulelens.lsp.memory.MemoryFeature` is a :class:`MemoryHost`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from lsprotocol import types

    from rulelens.lsp.session import Session
    from rulelens.memory.service import MemoryService

T = TypeVar("T")


class Host(Protocol):
    """The language server as a feature registers with it and reports through it."""

    debounce_ms: int
    #: The memory feature, once registered (``lsp.memory``).
    memory: Any

    @property
    def session(self) -> Session: ...

    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...

    @property
    def work_done_progress(self) -> Any: ...

    @property
    def protocol(self) -> Any: ...

    @property
    def feature(self) -> Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]: ...

    @property
    def command(self) -> Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]: ...

    @property
    def thread(self) -> Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]: ...


class MemoryHost(Protocol):
    """The memory feature as the people-facing memory requests use it."""

    @property
    def session(self) -> Session: ...

    def service(self) -> MemoryService: ...

    def workspace(self, uri: Any) -> str: ...

    async def run(self, fn: Callable[[], T], pool: ThreadPoolExecutor | None = None) -> T: ...
