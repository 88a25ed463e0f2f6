"""Secrets from an untrusted workspace (issue 19, defect 1) and the server's refusals
(defects 5 and 7), through the CLI and the real server over stdio.

A repository's ``CLAUDE.md``, ``GEMINI.md`` and ``AGENTS.md`` import ``@/etc/shadow``-style
paths: an absolute path, a ``../`` escape, ``@~/.ssh/id_rsa``, and a symlink inside the
repository that points outside; Kiro ``#[[file:…]]`` references, OpenCode ``instructions``
and Aider's ``read:`` name the same files. A file outside the workspace holds a marker string. The
same tree is built twice, once with the outside files present and once without; every CLI
output and every server reply (including under ``agentCwd: "/"``, a ``cwd: "/"`` request
and ``didChangeConfiguration`` to ``../../..``) must hold no byte of them and be identical
between the two trees once the temporary base directory is named ``<BASE>``: no existence
signal either. Each child runs under a timeout and an address-space limit.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adversarial import rawlsp
from adversarial.hostile import Tree, assert_clean, make_tree
from adversarial.rawlsp import RawServer

SECRET = "RULELENS-SECRET-9c41e7"
#: Bytes of the machine's own files the imports name (``/etc/passwd`` is world-readable).
MACHINE_SECRETS = ("root:x:0:0", "root:*:")
#: Address space (not memory used); the server caps glibc's per-thread malloc arenas,
#: which would otherwise map 64 MiB for each of its watcher and pool threads.
ADDRESS_LIMIT = 1 << 30
TIMEOUT_S = 60
INVALID_PARAMS = -32602
IMPORTS = ("@../outside/secret.md", "@{outside}/secret.md", "@~/.ssh/id_rsa",
           "@docs/link.md", "@/etc/shadow", "@../../../../../../../../etc/passwd")
PROTOCOL_MD = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def world(base: Path, outside_exists: bool) -> Tree:
    """A repository whose instruction files import outside paths; the outside files (a
    marker in ``base/outside/secret.md`` and the fake home's ``.ssh/id_rsa``) exist only
    when ``outside_exists``. The symlink ``docs/link.md`` points at the outside file."""
    tree = make_tree(base)
    tree.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    outside = base / "outside"
    outside.mkdir()
    (tree.home / ".ssh").mkdir()
    if outside_exists:
        (outside / "secret.md").write_text(f"# {SECRET}\n\n{SECRET} production key\n")
        (tree.home / ".ssh" / "id_rsa").write_text(f"-----BEGIN {SECRET}-----\n")
    (tree.repo / "docs").mkdir()
    (tree.repo / "docs" / "link.md").symlink_to("../../outside/secret.md")
    body = "# Rules\n\nKeep it short.\n\n" + "\n".join(
        i.format(outside=outside) for i in IMPORTS) + "\n"
    for name in ("CLAUDE.md", "GEMINI.md", "AGENTS.md"):
        (tree.repo / name).write_text(body)
    # The other agents' ways to name a file: Kiro references, OpenCode instructions,
    # Aider's read: list.
    steering = tree.repo / ".kiro" / "steering"
    steering.mkdir(parents=True)
    (steering / "refs.md").write_text("# Refs\n\n#[[file:../outside/secret.md]]\n"
                                      f"#[[file:{outside}/secret.md]]\n#[[file:docs/link.md]]\n")
    (tree.repo / "opencode.json").write_text(json.dumps({"instructions": [
        f"{outside}/*.md", "../outside/secret.md", "~/.ssh/*", "docs/link.md"]}))
    (tree.repo / ".aider.conf.yml").write_text(
        f"read:\n  - ../outside/secret.md\n  - {outside}/secret.md\n  - ~/.ssh/id_rsa\n"
        "  - docs/link.md\n")
    (tree.repo / "src").mkdir()
    (tree.repo / "src" / "app.py").write_text("X = 1\n")
    return tree


#: The last-session line is computed in the background ("checking the last session…"
#: until it is known): when a reply catches it is timing, not the tree. No session exists.
_LAST_SESSION = re.compile(r"checking the last session(?:\u2026|\\u2026)|no session here yet")


def normalise(text: str, base: Path) -> str:
    return _LAST_SESSION.sub("<LAST-SESSION>", text.replace(str(base), "<BASE>"))


def assert_no_secret(text: str) -> None:
    assert SECRET not in text
    for marker in MACHINE_SECRETS:
        assert marker not in text


def run_limited(tree: Tree, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``rulelens ARGS`` as a real process under the address-space limit and a timeout."""
    return subprocess.run([sys.executable, "-m", "rulelens", *args], cwd=tree.base,
                          env=tree.env, capture_output=True, timeout=TIMEOUT_S, check=False,
                          preexec_fn=_limit)


CLI_RUNS: dict[str, Callable[[Tree], tuple[str, ...]]] = {
    "chain-all": lambda t: ("chain", str(t.repo / "src" / "app.py"), "--agent", "all",
                            "--cwd", str(t.repo), "--json"),
    "chain-claude": lambda t: ("chain", str(t.repo / "CLAUDE.md"), "--agent", "claude",
                               "--cwd", str(t.repo), "--json"),
    "chain-gemini": lambda t: ("chain", str(t.repo / "src" / "app.py"), "--agent", "gemini",
                               "--cwd", str(t.repo), "--json"),
    "render-claude": lambda t: ("render", str(t.repo / "src" / "app.py"), "--agent", "claude",
                                "--cwd", str(t.repo)),
    "render-gemini": lambda t: ("render", str(t.repo / "src" / "app.py"), "--agent", "gemini",
                                "--cwd", str(t.repo)),
    "lint-json": lambda t: ("lint", "--format", "json", str(t.repo)),
    "lint-text": lambda t: ("lint", str(t.repo)),
}


@pytest.mark.parametrize("run", sorted(CLI_RUNS))
def test_cli_shows_no_outside_byte_and_no_existence_signal(tmp_path: Path, run: str) -> None:
    outputs = []
    for exists in (True, False):
        base = tmp_path / ("present" if exists else "missing")  # equal lengths: equal sizes
        tree = world(base, exists)
        done = run_limited(tree, *CLI_RUNS[run](tree))
        assert_clean(done)
        assert done.returncode in (0, 1), done.stderr.decode()
        text = done.stdout.decode() + "\n--stderr--\n" + done.stderr.decode()
        assert_no_secret(text)
        outputs.append((done.returncode, normalise(text, base)))
    assert outputs[0] == outputs[1]


def test_cli_lists_outside_imports_by_their_spelling_needing_approval(tmp_path: Path) -> None:
    tree = world(tmp_path, True)
    done = run_limited(tree, *CLI_RUNS["chain-all"](tree))
    assert done.returncode == 0, done.stderr.decode()
    views = {v["agent"]: v for v in json.loads(done.stdout)["agents"]}
    claude = {i["spec"]: i for i in views["claude"]["imports"]}
    for spec in ("../outside/secret.md", "~/.ssh/id_rsa", "docs/link.md", "/etc/shadow"):
        assert claude[spec]["status"] == "needs-approval", claude[spec]
    # The symlink is listed under the name written in CLAUDE.md, not where it points.
    skipped = {s["path"]: s for s in views["claude"]["skipped"]}
    assert skipped[str(tree.repo / "docs" / "link.md")]["reason"] == "import-needs-approval"
    assert "needs approval" in skipped[str(tree.repo / "docs" / "link.md")]["detail"]
    gemini = {i["spec"]: i["status"] for i in views["gemini"]["imports"]}
    assert gemini["docs/link.md"] == "needs-approval"
    assert gemini["../outside/secret.md"] == "outside"  # Gemini's own refusal, by spelling
    content = next(f["content"] for f in views["gemini"]["files"]
                   if f["path"].endswith("GEMINI.md"))
    assert "not opened: docs/link.md - outside the workspace, needs approval" in content


# ------------------------------------------------------------------ the real server
def _server_command() -> list[str]:
    """``rulelens serve --stdio`` under the address-space limit."""
    return [sys.executable, "-c",
            "import resource, runpy, sys\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_LIMIT}, {ADDRESS_LIMIT}))\n"
            "sys.argv = ['rulelens', 'serve', '--stdio']\n"
            "runpy.run_module('rulelens', run_name='__main__', alter_sys=True)\n"]


def wait_for(server: RawServer, test: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    with server._cond:
        while not test():
            left = deadline - time.monotonic()
            assert left > 0, "timed out waiting"
            server._cond.wait(left)


def messages(server: RawServer) -> list[str]:
    return [n["params"]["message"] for n in server.notifications
            if n["method"] == "window/showMessage"]


def _error(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" in answer, answer
    error: dict[str, Any] = answer["error"]
    return error


def _session(tree: Tree, stderr: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every reply and message of one server session with hostile settings and params."""
    monkeypatch.setattr(rawlsp, "SERVER", _server_command())
    seen: list[str] = []
    with stderr.open("wb") as err, rawlsp.raw_server(tree.env, stderr=err) as server:
        server.initialize(tree.repo, {"agentCwd": "/", "agents": "all"})
        wait_for(server, lambda: any("rulelens.agentCwd" in m for m in messages(server)))
        app = server.open(tree.repo / "src" / "app.py")
        claude_md = server.open(tree.repo / "CLAUDE.md")
        for uri in (app, claude_md):
            at = {"textDocument": {"uri": uri}}
            seen.append(json.dumps(server.result("rulelens/agentsForFile", {"uri": uri})))
            for agent in ("claude", "gemini", "codex"):
                seen.append(json.dumps(server.result("rulelens/chain",
                                                     {"uri": uri, "agent": agent})))
            seen.append(json.dumps(server.result("rulelens/chain", {"uri": uri})))
            seen.append(json.dumps(server.result("textDocument/codeLens", at)))
            seen.append(json.dumps(server.result(
                "textDocument/hover", {**at, "position": {"line": 0, "character": 0}})))
        # A start directory outside the workspace, as request params: refused, one line.
        for cwd in ("/", str(tree.base), str(tree.repo / ".." / "outside"),
                    str(tree.repo / "docs" / "link.md"), "relative/dir", "/tmp\x00/x"):
            for method, extra in (("rulelens/chain", {"agent": "claude"}),
                                  ("rulelens/agentsForFile", {})):
                error = _error(server.call(method, {"uri": app, "cwd": cwd, **extra}))
                assert error["code"] == INVALID_PARAMS, error
                assert error["message"].startswith("cwd: "), error
                assert "\n" not in error["message"]
                seen.append(json.dumps(error))
        # The setting changed to an escape, then to a NUL byte, then to a non-string.
        for value in ("../../..", "src\x00/..", 42):
            before = len(messages(server))
            server.notify("workspace/didChangeConfiguration",
                          {"settings": {"rulelens": {"agentCwd": value, "agents": "all"}}})
            wait_for(server, lambda b=before: len(messages(server)) > b)
            answer = server.result("rulelens/agentsForFile", {"uri": app})
            assert answer["cwd"] == str(tree.repo)  # the workspace folder, not the setting
            seen.append(json.dumps(answer))
        seen += messages(server)
        assert all(m.startswith("RuleLens: rulelens.agentCwd: ") and "\n" not in m
                   for m in messages(server)), messages(server)
        assert server.shutdown_and_exit() == 0
    log = stderr.read_text()
    assert "Traceback" not in log, log
    seen.append("log lines: " + str(len(log.splitlines())))
    return seen


def test_server_untrusted_settings_and_params_reveal_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = []
    for exists in (True, False):
        base = tmp_path / ("present" if exists else "missing")  # equal lengths: equal sizes
        tree = world(base, exists)
        replies = _session(tree, base / "stderr.log", monkeypatch)
        for reply in replies:
            assert_no_secret(reply)
        sessions.append([normalise(r, base) for r in replies])
    assert sessions[0] == sessions[1]


def test_server_unknown_agent_is_invalid_params_without_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = world(tmp_path, True)
    monkeypatch.setattr(rawlsp, "SERVER", _server_command())
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as err, rawlsp.raw_server(tree.env, stderr=err) as server:
        server.initialize(tree.repo)
        uri = server.open(tree.repo / "src" / "app.py")
        for agent in ("nope", "../claude", "grok\x00"):
            error = _error(server.call("rulelens/chain", {"uri": uri, "agent": agent}))
            assert error["code"] == INVALID_PARAMS
            assert error["message"].startswith(f"agent: unknown agent {agent!r}"), error
            assert "claude" in error["message"]  # it names the known ids
        # The server keeps serving.
        assert server.result("rulelens/chain", {"uri": uri, "agent": "claude"})["agent"]
        assert server.shutdown_and_exit() == 0
    assert "Traceback" not in stderr.read_text(), stderr.read_text()


# ------------------------------------------------------------------ the contract
def documented_agents_for_file_forms() -> list[dict[str, Any]]:
    """Every params form docs/protocol.md gives ``rulelens/agentsForFile``: the required
    fields alone, each optional field in each documented alternative, and all together."""
    text = PROTOCOL_MD.read_text()
    section = text.split("### `rulelens/agentsForFile`", 1)[1]
    params = re.search(r"Params `\{(.*?)\}`", section, re.DOTALL)
    assert params is not None, "docs/protocol.md gives agentsForFile no Params line"
    fields = re.findall(r'"(\w+)"(\??):\s*((?:[^,"]|"[^"]*")+)', params.group(1))
    required = {name for name, optional, _ in fields if not optional}
    options = {name: [alt.strip() for alt in kinds.split("|")]
               for name, optional, kinds in fields if optional}
    assert required == {"uri"}, fields
    assert options == {"cwd": ["string"], "agents": ["[string]", '"all"']}, options
    samples = {("cwd", "string"): "<CWD>", ("agents", "[string]"): ["grok", "claude"],
               ("agents", '"all"'): "all"}
    forms: list[dict[str, Any]] = [{}]
    for name, alts in options.items():
        forms += [{name: samples[(name, alt)]} for alt in alts]
    forms.append({name: samples[(name, alts[-1])] for name, alts in options.items()})
    return forms


def test_agents_for_file_accepts_every_documented_form(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = world(tmp_path, False)
    monkeypatch.setattr(rawlsp, "SERVER", _server_command())
    with rawlsp.raw_server(tree.env) as server:
        server.initialize(tree.repo)
        uri = server.open(tree.repo / "src" / "app.py")
        forms = documented_agents_for_file_forms()
        assert len(forms) == 5
        for form in forms:
            params = {"uri": uri, **{k: (str(tree.repo / "src") if v == "<CWD>" else v)
                                     for k, v in form.items()}}
            answer = server.result("rulelens/agentsForFile", params)
            assert answer is not None, params
            if form.get("agents") == "all":
                assert len(answer["enabled"]) > 2 and answer["enabled"][0] == "grok"
                assert [v["agent"].split("@")[0] for v in answer["agents"]][:2] == [
                    "grok", "claude"]
            elif "agents" in form:
                assert answer["enabled"] == ["grok", "claude"]
            if "cwd" in form:
                assert answer["cwd"] == str(tree.repo / "src")
        for bad in ("claude", "ALL", ""):
            error = _error(server.call("rulelens/agentsForFile", {"uri": uri, "agents": bad}))
            assert error["code"] == INVALID_PARAMS and "agents" in error["message"]
        assert server.shutdown_and_exit() == 0
