"""The JSON-RPC layer under the handlers: framing, lifecycle, one reply per request, exit.

pygls drops a request whose params its converter cannot structure (it logs a traceback
and never answers), answers nothing after ``shutdown``, and serves requests before
``initialize``. :class:`RuleLensProtocol` takes each message from the wire as plain JSON
and decides, before any handler runs:

* a frame that is not JSON, or JSON that is not a message: one warning line, and a
  ``ParseError``/``InvalidRequest`` reply with ``id: null``;
* before ``initialize``: requests get ``ServerNotInitialized`` (-32002), notifications
  are dropped (``exit`` still exits); a second ``initialize`` is ``InvalidRequest``;
* after ``shutdown``: requests get ``InvalidRequest`` (-32600), notifications other
  than ``exit`` are dropped;
* params that do not structure into lsprotocol's type for the method, or that do not
  have the shape :data:`rulelens.lsp.protocol.REQUEST_PARAMS` gives a custom request or
  :data:`~rulelens.lsp.protocol.COMMAND_ARGUMENTS` a command: ``InvalidParams`` (-32602);
* an unknown request: ``MethodNotFound``; an unknown notification is ignored.

A handler that raises a user-facing error (``ValueError`` or an exception class defined
in ``rulelens``) gets an error reply carrying its message and one log line; anything else
is a bug and is logged with its traceback. Once a send fails (the client closed the pipe)
nothing more is sent, and the failure is logged once, at debug level.

:func:`serve` reads frames on its own thread (a busy handler pool never stops the reader)
and returns the exit code LSP prescribes: 0 after ``shutdown`` + ``exit``, else 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import logging.handlers
import queue
import re
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, TypeGuard
from urllib.parse import unquote

from cattrs import Converter
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcRequestCancelled,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import StdoutWriter
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.language_server import lsp_method

from rulelens.lsp import protocol

if TYPE_CHECKING:
    from collections.abc import Generator

    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

#: A message larger than this is read and thrown away (a 20 MB document fits easily).
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
#: A header line longer than this is not a header.
MAX_HEADER_LINE = 8 * 1024
_CHUNK = 1024 * 1024
_CONTENT_LENGTH = b"content-length:"

#: LSP's ``RequestFailed``: the request was valid but could not be carried out.
REQUEST_FAILED = -32803

UNINITIALIZED, RUNNING, SHUT_DOWN = "uninitialized", "running", "shut down"


class RuleLensProtocol(LanguageServerProtocol):
    """pygls' LSP protocol with the checks above; see the module docstring."""

    def __init__(self, server: LanguageServer, converter: Converter) -> None:
        super().__init__(server, converter)
        self.state = UNINITIALIZED
        #: Set by ``exit``: the process's exit code (0 only after ``shutdown``).
        self.exit_code: int | None = None
        self._exited = asyncio.Event()
        self._write_lock = threading.Lock()
        self._closed = False

    # ------------------------------------------------------------------ reading
    def structure_message(self, data: dict[str, Any]) -> Any:
        """Keep every decoded object plain; :meth:`receive` structures the whole message."""
        return data

    def receive(self, body: bytes) -> None:
        """Handle one frame's body: exactly one reply for anything that has an id."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError) as exc:   # JSON, UTF-8, int size, nesting
            log.warning("ignored a frame that is not JSON: %s", _short(exc))
            self._reply_error(None, JsonRpcParseError("message is not JSON"))
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            log.warning("ignored a frame that is not a JSON-RPC 2.0 message")
            msg_id = message.get("id") if isinstance(message, dict) else None
            self._reply_error(msg_id if _valid_id(msg_id) else None,
                              JsonRpcInvalidRequest("not a JSON-RPC 2.0 message"))
            return
        method = message.get("method")
        if "method" not in message:
            self._receive_response(message)
        elif "id" not in message:
            if isinstance(method, str):
                self._receive_notification(method, message)
            else:
                log.warning("ignored a notification whose method is not a string")
        elif not _valid_id(message["id"]) or not isinstance(method, str):
            log.warning("ignored a request with an invalid id or method")
            self._reply_error(None, JsonRpcInvalidRequest("invalid id or method"))
        else:
            self._receive_request(message["id"], method, message)

    def _receive_request(self, msg_id: int | str, method: str, message: dict[str, Any]) -> None:
        refusal = self._lifecycle_refusal(method)
        if refusal is not None:
            log.warning("refused %s (id %r): %s", method, msg_id, refusal.message)
            self._reply_error(msg_id, refusal)
            return
        if method not in self.fm.builtin_features and method not in self.fm.features:
            log.info("unknown request %s (id %r)", method, msg_id)
            self._reply_error(msg_id, JsonRpcMethodNotFound(f"unknown method {method}"))
            return
        structured, problem = self._structure(method, message)
        if problem is not None:
            log.warning("invalid params for %s (id %r): %s", method, msg_id, problem)
            self._reply_error(msg_id, JsonRpcInvalidParams(f"invalid params: {problem}"))
            return
        if method == types.INITIALIZE:
            self.state = RUNNING
        super().handle_message(structured)
        if method == types.SHUTDOWN:
            self.state = SHUT_DOWN

    def _receive_notification(self, method: str, message: dict[str, Any]) -> None:
        if method == types.EXIT:
            self.exit_code = 0 if self.state == SHUT_DOWN else 1
            self._exited.set()
            return
        if self.state != RUNNING:
            log.debug("dropped %s: the server is %s", method, self.state)
            return
        if method not in self.fm.builtin_features and method not in self.fm.features \
                and method != types.CANCEL_REQUEST:
            log.debug("ignored notification %s (not served)", method)
            return
        structured, problem = self._structure(method, message)
        if problem is None and method == types.TEXT_DOCUMENT_DID_CHANGE:
            uri = structured.params.text_document.uri
            if unquote(uri) not in self.workspace.text_documents:
                problem = f"{uri} is not open"
        if problem is not None:
            log.warning("ignored %s: invalid params: %s", method, problem)
            return
        super().handle_message(structured)

    def _check_handler_result(self, future: Future[Any]) -> None:
        """A notification handler failed: one line for a user error, else a traceback."""
        if future.cancelled() or (exc := future.exception()) is None:
            return
        if isinstance(exc, JsonRpcException) or is_user_error(exc):
            log.warning("a notification failed: %s", _short(exc))
        else:
            log.error("a notification handler failed", exc_info=exc)

    def _receive_response(self, message: dict[str, Any]) -> None:
        msg_id = message.get("id")
        if not _valid_id(msg_id):
            log.warning("ignored a response without a valid id")
            return
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            code = error.get("code")
            self._handle_response(msg_id, None, types.ResponseError(
                code=code if isinstance(code, int) and not isinstance(code, bool) else -32001,
                message=str(error.get("message"))))
        else:
            self._handle_response(msg_id, message.get("result"))

    def _lifecycle_refusal(self, method: str) -> JsonRpcException | None:
        if self.state == UNINITIALIZED and method != types.INITIALIZE:
            return JsonRpcServerNotInitialized("the server is not initialized")
        if self.state == RUNNING and method == types.INITIALIZE:
            return JsonRpcInvalidRequest("the server is already initialized")
        if self.state == SHUT_DOWN:
            return JsonRpcInvalidRequest("the server is shut down")
        return None

    def _structure(self, method: str, message: dict[str, Any]) -> tuple[Any, str | None]:
        """The message as lsprotocol's type for ``method`` (or generic), or why it is not."""
        params = message.get("params")
        problem = protocol.check_params(method, params)
        if problem is None and method == types.WORKSPACE_EXECUTE_COMMAND \
                and isinstance(params, dict):
            problem = protocol.check_command(params.get("command"), params.get("arguments"))
        if problem is not None:
            return None, problem
        message_type = self.get_message_type(method)
        if message_type is None:
            return _Generic(message.get("id"), method, params, "id" in message), None
        try:
            return self._converter.structure(message, message_type), None
        except Exception as exc:  # cattrs reports a mismatch in several exception types
            return None, _short(exc)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, iterating a copy of the in-flight requests (workers pop them)."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in dict(self._request_futures).items():
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: tuple[Any, ...] | None = None,
                         kwargs: dict[str, Any] | None = None) -> None:
        """pygls keeps the future of every generator/thread handler under ``msg_id`` and
        pops it only for client requests: each ``didOpen``/``didClose`` left one behind.
        Drop the entry when the future is done (replies are sent by ``callback``)."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(functools.partial(self._forget_future, msg_id))

    def _forget_future(self, msg_id: Any, future: Any) -> None:
        if self._request_futures.get(msg_id) is future:
            self._request_futures.pop(msg_id, None)

    def _handle_cancel_notification(self, msg_id: int | str) -> None:
        future = self._request_futures.pop(msg_id, None)
        if future is None:
            log.debug("cancel for %r: already answered or unknown", msg_id)
        elif future.cancel():
            log.debug("cancelled request %r", msg_id)

    # ------------------------------------------------------------------ replies
    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        """Exactly one reply for a finished handler; user errors log one line."""
        self._request_futures.pop(msg_id, None)
        if future.cancelled():
            self._reply_error(msg_id, JsonRpcRequestCancelled(f"request {msg_id!r} cancelled"))
            return
        exc = future.exception()
        if exc is None:
            self._send_response(msg_id, result=future.result())
        elif isinstance(exc, JsonRpcException):
            log.warning("request %r answered %s: %s", msg_id, exc.code, exc.message)
            self._reply_error(msg_id, exc)
        elif is_user_error(exc):
            log.warning("request %r refused: %s", msg_id, _short(exc))
            code = JsonRpcInvalidParams.CODE if isinstance(exc, ValueError) else REQUEST_FAILED
            self._reply_error(msg_id, JsonRpcException(_short(exc), code=code))
        else:
            log.error("request %r failed", msg_id, exc_info=exc)
            self._reply_error(msg_id, JsonRpcInternalError(_short(exc)))

    def _reply_error(self, msg_id: Any, error: JsonRpcException) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {
            "code": error.code, "message": error.message}})

    def _send_data(self, data: Any) -> None:
        """Write one message; after the transport failed once, write nothing more."""
        if not data or self._closed or self.writer is None:
            return
        try:
            body = json.dumps(data, default=self._serialize_message).encode("utf-8")
        except Exception as exc:
            log.error("could not serialise a message: %s", _short(exc))
            msg_id = getattr(data, "id", None)
            if msg_id is not None and getattr(data, "error", None) is None:
                self._reply_error(msg_id, JsonRpcInternalError("result not serialisable"))
            return
        frame = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        with self._write_lock:
            if self._closed:
                return
            try:
                self.writer.write(frame)
            except (OSError, ValueError) as exc:   # closed pipe, closed file
                self._closed = True
                log.debug("the client's pipe is closed; sending nothing more (%s)", exc)

    # ------------------------------------------------------------------ the loop
    async def read_frames(self, stdin: IO[bytes]) -> None:
        """Read ``Content-Length`` frames until EOF or ``exit``; never raises."""
        loop = asyncio.get_running_loop()
        reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulelens-stdin")
        exited: asyncio.Future[Any] = asyncio.ensure_future(self._exited.wait())
        try:
            while not self._exited.is_set():
                read: asyncio.Future[Any] = asyncio.ensure_future(
                    loop.run_in_executor(reader, _read_frame, stdin))
                await asyncio.wait([read, exited], return_when=asyncio.FIRST_COMPLETED)
                if not read.done():
                    read.cancel()
                    return
                frame: _Frame = read.result()
                for problem in frame.problems:
                    log.warning("ignored a malformed frame: %s", problem)
                if frame.eof:
                    return
                if frame.body is not None:
                    self.receive(frame.body)
                await asyncio.sleep(0)
        finally:
            exited.cancel()
            reader.shutdown(wait=False, cancel_futures=True)


class _Generic:
    """A structured request/notification of a method lsprotocol does not type."""

    jsonrpc = "2.0"

    def __init__(self, msg_id: Any, method: str, params: Any, is_request: bool) -> None:
        if is_request:
            self.id = msg_id
        self.method, self.params = method, params


@dataclass
class _Frame:
    """What the reader found: a body (``None`` if there is none), what was wrong, EOF."""

    body: bytes | None = None
    problems: list[str] = field(default_factory=list)
    eof: bool = False


_HEADER = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r?\n")


def _read_frame(stdin: IO[bytes]) -> _Frame:
    """(reader thread) Read up to one frame; everything that was not one is a problem."""
    frame = _Frame()
    length: int | None = None
    headers = 0
    while True:
        line = stdin.readline(MAX_HEADER_LINE)
        if not line:
            frame.eof = True
            return frame
        if line in (b"\r\n", b"\n"):
            if headers:
                break
            continue                    # stray blank lines between frames
        headers += 1
        at = line.lower().rfind(_CONTENT_LENGTH)
        if at > 0 or (at < 0 and not _HEADER.fullmatch(line)):
            frame.problems.append(f"{len(line) if at < 0 else at} bytes that are not a header")
        if at >= 0:                     # also after garbage on the same line
            value = line[at + len(_CONTENT_LENGTH):].strip()
            length = int(value) if value.isdigit() else None
            if length is None:
                frame.problems.append("Content-Length is not a number")
    if length is None:
        frame.problems.append("a header without Content-Length")
    elif length > MAX_MESSAGE_BYTES:
        remaining = length
        while remaining > 0:
            chunk = stdin.read(min(_CHUNK, remaining))
            if not chunk:
                frame.eof = True
                return frame
            remaining -= len(chunk)
        frame.problems.append(f"a {length}-byte message (more than {MAX_MESSAGE_BYTES})")
    else:
        frame.body = stdin.read(length)
        frame.eof = len(frame.body) < length
    return frame


def strict_converter() -> Converter:
    """pygls' converter, except that a string, integer, boolean or number field only takes
    that JSON type (cattrs would turn ``5`` into ``"5"`` and ``"no"`` into ``True``)."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    for kind in (str, int, bool, float):
        converter.register_structure_hook(kind, _exactly(kind))
    return converter


def _exactly(kind: type) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _type: Any) -> Any:
        if type(value) is kind or (kind is float and type(value) is int):
            return value
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return structure


def _valid_id(value: object) -> TypeGuard[int | str]:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _short(exc: BaseException) -> str:
    """One line for an exception (cattrs nests its reasons in sub-exceptions)."""
    subs = getattr(exc, "exceptions", None)
    if subs:
        return "; ".join(_short(e) for e in subs[:3])
    note = getattr(exc, "__notes__", None)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if note:
        text = f"{text} ({note[0].strip()})"
    return text[:300]


def is_user_error(exc: BaseException) -> bool:
    """A deliberate refusal (bad value, a rulelens error class) rather than a bug."""
    return isinstance(exc, ValueError) or type(exc).__module__.startswith("rulelens.")


# ------------------------------------------------------------------ logging
class _DroppingQueueHandler(logging.handlers.QueueHandler):
    """Never blocks: when the queue is full (nobody reads stderr) records are dropped."""

    def enqueue(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(queue.Full):
            self.queue.put_nowait(record)


def log_to_stderr(level: int, fmt: str) -> Callable[[], None]:
    """Log to stderr from a daemon thread; return a function that flushes briefly."""
    records: queue.Queue[logging.LogRecord] = queue.Queue(maxsize=1000)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(fmt))
    listener = logging.handlers.QueueListener(records, handler)
    listener.start()                     # a daemon thread: exit never waits for it
    root = logging.getLogger()
    root.handlers[:] = [_DroppingQueueHandler(records)]
    root.setLevel(level)
    logging.captureWarnings(True)
    threading.excepthook = _log_thread_exception

    def flush(timeout: float = 0.2) -> None:
        drained = threading.Thread(target=records.join, daemon=True)
        drained.start()
        drained.join(timeout)

    return flush


def _log_thread_exception(args: threading.ExceptHookArgs) -> None:
    log.error("thread %s died", args.thread.name if args.thread else "?",
              exc_info=args.exc_value)


def serve(server: LanguageServer, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Serve ``server`` over a pipe pair until ``exit`` or EOF; the LSP exit code."""
    proto = server.protocol
    assert isinstance(proto, RuleLensProtocol)
    proto.set_writer(StdoutWriter(stdout))  # type: ignore[arg-type]
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(proto.read_frames(stdin))
    except KeyboardInterrupt:
        log.debug("interrupted")
    if proto.exit_code is not None:
        return proto.exit_code
    return 0 if proto.state == SHUT_DOWN else 1
