"""A buggy client against the real server over stdio: bad params, lifecycle misuse,
malformed frames, cancelled requests, and how the process ends.

Every request must get exactly one reply, the server must keep serving, and stderr must
hold one line per problem, never a traceback. Every child process runs under a timeout.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import time
from collections.abc import Iterator

import pytest

from rulelens.lsp import protocol

from .rawlsp import SERVER, RawServer, frame, make_workspace, raw_server

INVALID_PARAMS, INVALID_REQUEST, NOT_INITIALIZED = -32602, -32600, -32002


@pytest.fixture
def workspace(tmp_path: pathlib.Path) -> tuple[pathlib.Path, dict[str, str]]:
    return make_workspace(tmp_path)


@pytest.fixture
def stderr_log(tmp_path: pathlib.Path) -> Iterator[pathlib.Path]:
    path = tmp_path / "stderr.log"
    yield path


def _assert_no_traceback(log: pathlib.Path) -> None:
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert "ERROR" not in text, text[-3000:]


def test_params_that_do_not_match_get_invalid_params(
        workspace: tuple[pathlib.Path, dict[str, str]], stderr_log: pathlib.Path) -> None:
    repo, env = workspace
    with stderr_log.open("wb") as err, raw_server(env, stderr=err) as s:
        s.initialize(repo)
        uri = s.open(repo / "src" / "f0.py")
        doc = {"uri": uri}
        bad = [
            ("textDocument/codeLens", {}),
            ("textDocument/codeLens", {"textDocument": {"uri": 5}}),
            ("textDocument/hover", {"textDocument": doc, "position": {"line": -1,
                                                                      "character": 0}}),
            ("textDocument/hover", {"textDocument": doc, "position": {"line": 2**40,
                                                                      "character": 0}}),
            ("textDocument/hover", None),
            ("textDocument/codeAction", {"textDocument": doc, "range": 7,
                                         "context": {"diagnostics": []}}),
            (protocol.CHAIN, None),
            (protocol.CHAIN, {"uri": ["x"]}),
            (protocol.RENDER, []),
            (protocol.MEMORY_SEARCH, {"query": 3}),
            (protocol.MEMORY_SEARCH, {"query": "x", "all": "yes"}),
            (protocol.MEMORY_CHUNKS, {"workspaceUri": repo.as_uri()}),
            (protocol.MEMORY_STATUS, {"workspaceUri": 1}),
            ("workspace/executeCommand", {"command": protocol.SHOW_CHAIN, "arguments": [3]}),
            ("workspace/executeCommand", {"command": protocol.REMEMBER, "arguments": []}),
            ("workspace/executeCommand", {"command": protocol.REMEMBER,
                                          "arguments": [{"text": "x", "dryRun": 1}]}),
            ("workspace/executeCommand", {"command": "rulelens.noSuchCommand"}),
        ]
        for method, params in bad:
            assert s.error_code(method, params) == INVALID_PARAMS, (method, params)
        assert s.error_code("rulelens/noSuchMethod", {"uri": uri}) == -32601
        assert s.error_code("textDocument/completion", None) == -32601   # not offered
        # The same requests with good params are answered with results.
        assert s.result("textDocument/codeLens", {"textDocument": doc})
        assert s.result(protocol.CHAIN, {"uri": uri})["files"]
        assert s.result("workspace/executeCommand", {
            "command": protocol.SHOW_CHAIN, "arguments": [uri]})["files"]
        assert s.result(protocol.MEMORY_STATUS, None) is not None   # every field optional
        assert all(n == 1 for n in s.reply_counts().values()), s.reply_counts()
        assert s.shutdown_and_exit() == 0
    _assert_no_traceback(stderr_log)
    lines = stderr_log.read_text().splitlines()
    assert not [line for line in lines if not line.startswith("rulelens: ")], lines


def test_lifecycle_misuse(workspace: tuple[pathlib.Path, dict[str, str]],
                          stderr_log: pathlib.Path) -> None:
    repo, env = workspace
    with stderr_log.open("wb") as err, raw_server(env, stderr=err) as s:
        # Before initialize: requests are refused (shutdown too), notifications dropped.
        assert s.error_code("textDocument/hover", {}) == NOT_INITIALIZED
        assert s.error_code(protocol.CHAIN, {"uri": "file:///x"}) == NOT_INITIALIZED
        assert s.error_code("shutdown") == NOT_INITIALIZED
        s.open(repo / "src" / "f0.py")                       # dropped, not remembered
        assert s.error_code("initialize", {}) == INVALID_PARAMS   # no capabilities
        assert s.error_code("initialize", {"capabilities": 5}) == INVALID_PARAMS
        s.initialize(repo)                       # neither shutdown nor those wedged it
        status = s.result(protocol.SERVER_STATUS)
        assert status["documents"]["open"] == 0
        # A second initialize is refused; the server keeps serving.
        assert s.error_code("initialize", {"capabilities": {}}) == INVALID_REQUEST
        uri = s.open(repo / "src" / "f0.py")
        assert s.result("textDocument/codeLens", {"textDocument": {"uri": uri}})
        # After shutdown every request is refused, shutdown included; exit ends with 0.
        assert "error" not in s.call("shutdown")
        for method, params in (("textDocument/codeLens", {"textDocument": {"uri": uri}}),
                               (protocol.CHAIN, {"uri": uri}), ("shutdown", None),
                               ("initialize", {"capabilities": {}})):
            assert s.error_code(method, params) == INVALID_REQUEST, method
        s.notify("exit")
        assert s.wait_exit(5) == 0
    _assert_no_traceback(stderr_log)


@pytest.mark.parametrize("initialized", [False, True])
def test_exit_without_shutdown_exits_1(workspace: tuple[pathlib.Path, dict[str, str]],
                                       initialized: bool) -> None:
    repo, env = workspace
    with raw_server(env) as s:
        if initialized:
            s.initialize(repo)
        s.notify("exit")
        assert s.wait_exit(5) == 1


def test_eof_without_exit_ends_the_process(
        workspace: tuple[pathlib.Path, dict[str, str]]) -> None:
    repo, env = workspace
    with raw_server(env) as s:
        s.initialize(repo)
        assert s.proc.stdin is not None
        s.proc.stdin.close()                   # the editor died
        assert s.wait_exit(5) == 1


def test_malformed_frames_are_one_line_each(
        workspace: tuple[pathlib.Path, dict[str, str]], stderr_log: pathlib.Path) -> None:
    repo, env = workspace
    with stderr_log.open("wb") as err, raw_server(env, stderr=err) as s:
        s.initialize(repo)
        garbage = [frame(body) for body in (
            b"{bad}",                                               # not JSON
            b"\xff\xfe\x00\x01",                                     # not UTF-8
            b"[]",                                                  # a batch (not LSP)
            b"7",                                                   # not an object
            b'{"jsonrpc":"1.0","id":99}',                           # wrong version
            b'{"jsonrpc":"2.0","id":[1],"method":"shutdown"}',      # an id that is no id
            b'{"jsonrpc":"2.0","id":7.5,"method":7}',               # nor is this method
            b"[" * 100_000 + b"]" * 100_000,                        # deeply nested
            b'{"jsonrpc":"2.0","id":1' + b"0" * 5000 + b',"method":"shutdown"}',  # big int
        )] + [
            b"Content-Length: abc\r\n\r\n",                         # length not a number
            b"X-Nonsense: 1\r\n\r\n",                               # no Content-Length
            b'{"jsonrpc":"2.0","id":5,"method":"shutdown"}\r\n',    # no header at all
        ]
        for chunk in garbage:
            s.send_bytes(chunk)
            assert s.result(protocol.SERVER_STATUS)["documents"]["open"] == 0, chunk[:40]
        wrong_version = s.reply(99)
        assert wrong_version["error"]["code"] == INVALID_REQUEST
        # The id-less garbage got id-null errors; nothing was answered twice.
        assert all(n == 1 for k, n in s.reply_counts().items() if k is not None)
        assert s.shutdown_and_exit() == 0
    _assert_no_traceback(stderr_log)
    warnings = [line for line in stderr_log.read_text().splitlines() if "WARNING" in line]
    assert len(warnings) >= len(garbage) - 1, warnings
    assert all(len(line) < 400 for line in warnings), warnings


def test_cancelled_requests_get_one_reply(
        workspace: tuple[pathlib.Path, dict[str, str]], stderr_log: pathlib.Path) -> None:
    repo, env = workspace
    with stderr_log.open("wb") as err, raw_server(env, stderr=err) as s:
        s.initialize(repo)
        uris = [s.open(p) for p in sorted((repo / "src").glob("*.py"))]
        ids = []
        for round_ in range(50):
            uri = uris[round_ % len(uris)]
            ids.append(s.request("textDocument/codeLens", {"textDocument": {"uri": uri}}))
            s.notify("$/cancelRequest", {"id": ids[-1]})
            s.notify("$/cancelRequest", {"id": 10_000 + round_})   # unknown: ignored
            s.notify("$/cancelRequest", {"id": None})              # malformed: ignored
        for msg_id in ids:
            reply = s.reply(msg_id)
            assert "result" in reply or reply["error"]["code"] == -32800, reply
        s.result(protocol.SERVER_STATUS)
        time.sleep(0.2)
        assert all(s.reply_counts()[i] == 1 for i in ids)
        assert s.shutdown_and_exit() == 0
    _assert_no_traceback(stderr_log)


def test_out_of_workspace_uris_are_one_line(
        workspace: tuple[pathlib.Path, dict[str, str]], stderr_log: pathlib.Path,
        tmp_path: pathlib.Path) -> None:
    repo, env = workspace
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    with stderr_log.open("wb") as err, raw_server(env, stderr=err) as s:
        s.initialize(repo)
        for uri in (outside.as_uri(), "file:///etc", "https://example.com/x", "file://h/x"):
            for method, params in ((protocol.MEMORY_STATUS, {"workspaceUri": uri}),
                                   (protocol.MEMORY_SEARCH, {"query": "x",
                                                             "workspaceUri": uri})):
                reply = s.call(method, params)
                assert "workspace folder" in reply["error"]["message"], reply
        uri = s.open(outside / "AGENTS.md", "# not ours\n")
        assert s.result(protocol.CHAIN, {"uri": uri}) is None     # not served: null
        assert s.shutdown_and_exit() == 0
    _assert_no_traceback(stderr_log)
    refusals = [line for line in stderr_log.read_text().splitlines() if "refused" in line]
    assert len(refusals) == 8, refusals


def _one_session(repo: pathlib.Path, env: dict[str, str]) -> float:
    """initialize -> requests -> shutdown -> exit with a stderr pipe nobody reads;
    seconds from ``exit`` to the process's end."""
    s = RawServer(env, stderr=subprocess.PIPE)
    try:
        s.initialize(repo)
        uri = s.open(repo / "src" / "f0.py")
        for _ in range(20):                      # fill stderr: each is a warning line
            s.request(protocol.MEMORY_STATUS, {"workspaceUri": "file:///etc/" + "x" * 4000})
        s.result("textDocument/codeLens", {"textDocument": {"uri": uri}})
        for _ in range(5):                       # requests still running at shutdown
            s.request("textDocument/hover", {"textDocument": {"uri": uri},
                                             "position": {"line": 0, "character": 0}})
        assert "error" not in s.call("shutdown")
        started = time.monotonic()
        s.notify("exit")
        assert s.wait_exit(5) == 0
        return time.monotonic() - started
    finally:
        s.close()
        assert s.proc.stderr is not None
        s.proc.stderr.close()


def test_exit_within_a_second_even_with_an_unread_stderr(
        workspace: tuple[pathlib.Path, dict[str, str]]) -> None:
    repo, env = workspace
    times = [_one_session(repo, env) for _ in range(20)]
    assert max(times) < 1.0, times


def test_a_closed_stdout_stops_the_sending_not_the_server(
        workspace: tuple[pathlib.Path, dict[str, str]], stderr_log: pathlib.Path) -> None:
    """The client stops reading (closes its end) but still talks: the server sends nothing
    more, says so once at DEBUG, and still ends with 0 on shutdown + exit."""
    repo, env = workspace
    with stderr_log.open("wb") as err:
        proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, env={**env, "RULELENS_LOG_LEVEL": "debug"})
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdout.close()
            messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"capabilities": {}, "rootUri": repo.as_uri()}},
                        {"jsonrpc": "2.0", "method": "initialized", "params": {}}]
            uri = (repo / "src" / "f0.py").as_uri()
            messages += [{"jsonrpc": "2.0", "id": 10 + i, "method": "textDocument/codeLens",
                          "params": {"textDocument": {"uri": uri}}} for i in range(30)]
            messages += [{"jsonrpc": "2.0", "id": 99, "method": "shutdown"},
                         {"jsonrpc": "2.0", "method": "exit"}]
            for message in messages:
                proc.stdin.write(frame(json.dumps(message).encode()))
            proc.stdin.flush()
            assert proc.wait(20) == 0          # (startup included; exit timing: below)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    _assert_no_traceback(stderr_log)
    sending = [line for line in stderr_log.read_text().splitlines()
               if "pipe" in line.lower() or "error sending" in line.lower()]
    assert len(sending) == 1 and sending[0].startswith("rulelens: DEBUG "), sending


def test_notifications_with_bad_params_are_one_line(
        workspace: tuple[pathlib.Path, dict[str, str]], stderr_log: pathlib.Path) -> None:
    repo, env = workspace
    with stderr_log.open("wb") as err, raw_server(env, stderr=err) as s:
        s.initialize(repo)
        never = (repo / "src" / "f1.py").as_uri()
        s.notify("textDocument/didChange", {"textDocument": {"uri": never, "version": 2},
                                            "contentChanges": [{"text": "x"}]})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": never}})   # no text
        s.notify("textDocument/didClose", {})
        s.notify("workspace/didChangeConfiguration", None)
        s.notify("$/someClientThing", {"x": 1})                             # ignored
        assert s.result(protocol.SERVER_STATUS)["documents"]["open"] == 0
        assert s.result(protocol.CHAIN, {"uri": never}) is None
        assert not [n for n in s.notifications if n["method"] == "window/showMessage"]
        assert s.shutdown_and_exit() == 0
    _assert_no_traceback(stderr_log)
    warnings = [line for line in stderr_log.read_text().splitlines() if "WARNING" in line]
    assert len(warnings) == 4, warnings


def test_exit_is_prompt_with_a_fifo_in_the_chain(
        workspace: tuple[pathlib.Path, dict[str, str]]) -> None:
    """A FIFO named like an instruction file (nobody ever writes to it) may hold a worker;
    it must not hold the process after ``exit``."""
    repo, env = workspace
    fifo_dir = repo / "fifo"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "AGENTS.md")
    (fifo_dir / "code.py").write_text("X = 1\n")
    for _ in range(3):
        with raw_server(env) as s:
            s.initialize(repo)
            uri = s.open(fifo_dir / "code.py")
            ids = [s.request(method, {"textDocument": {"uri": uri}, "position": {
                "line": 0, "character": 0}} if method == "textDocument/hover"
                else {"textDocument": {"uri": uri}})
                for method in ("textDocument/codeLens", "textDocument/hover")]
            ids.append(s.request(protocol.CHAIN, {"uri": uri}))
            assert "error" not in s.call("shutdown")
            started = time.monotonic()
            s.notify("exit")
            assert s.wait_exit(5) == 0
            assert time.monotonic() - started < 1.0
            assert all(s.reply_counts().get(i, 0) <= 1 for i in ids)
