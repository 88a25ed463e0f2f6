"""End-to-end: the packaged extension in real VS Code (code-server), driven by Playwright.

Why a real editor: the value of the client is what a person sees (the code lens, the Active
Rules view, the memory quick pick), and only a real workbench proves the .vsix installs,
activates, launches ``rulelens serve`` and renders the server's answers.

Tools come from ``tests/e2e/vscode/install-tools.sh`` (run by ``scripts/test``) under
``$RULELENS_TOOLS``; the .vsix from ``vscode-client/dist/rulelens-linux-x64.vsix`` (built by
``scripts/test``). Without them this test skips, unless ``RULELENS_REQUIRE_VSCODE_E2E=1``
(set by ``scripts/test``) turns the skip into a failure. HOME and XDG_* point at temp dirs;
code-server runs in its own process group, which is killed and checked empty afterwards.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.codeserver import (
    CODE_SERVER,
    NODE24_BIN,
    PLAYWRIGHT_DIR,
    free_port,
    missing_tools,
    stop,
)
from rulelens.agents.registry import AGENTS

ROOT = Path(__file__).resolve().parents[2]
VSIX = Path(os.environ.get("RULELENS_VSIX",
                           ROOT / "vscode-client" / "dist" / "rulelens-linux-x64.vsix"))
DRIVER = ROOT / "tests" / "e2e" / "vscode" / "e2e.mjs"
ARTIFACTS = Path(os.environ.get("RULELENS_ARTIFACTS", ROOT / "artifacts"))

# What the demo's src/app/handlers/orders.py must show (examples/demo): one answer per
# screen, for sessions started in the workspace folder: the lens, the status bar, the hover
# and the Active Rules groups give the same per-agent counts (Grok 5 · Claude 3 · …); Grok
# skips the gitignored CLAUDE.local.md and does not load the nested src/app/AGENTS.md (below
# the start directory). The demo has files for most agents, so most groups are shown.
DEEP_FILE = "src/app/handlers/orders.py"
#: The lens starts so; each agent's part also carries its start cost (`Grok 5 · 161 tok`).
LENS_EXPECT = "Grok 5 · "
LENS_RE = r"Grok 5 · \d+ tok · Claude 3 · \d+ tok · Codex 1 · \d+ tok"
TREE_EXPECT = ["Grok", "1. personal.md", "Codex CLI", "CLAUDE.local.md"]

# Memory search: examples/demo/home/.grok/memory/demo-shop-5a7bd946/MEMORY.md lines 5-11 are the
# "Payments" section about Stripe webhooks; the agent's pipeline ranks it first for this query.
MEMORY_QUERY = "stripe webhook"
MEMORY_FIRST = "MEMORY.md:5-11"          # the file name first in the row's label
MEMORY_FOLDER = "demo-shop-5a7bd946/"     # its folder leads the row's description
REMEMBER_TEXT = "Use the Stripe test clock fixtures for subscription tests"
# A one-line note for a workspace whose MEMORY.md does not exist yet: it would be the heading
# "## …" alone, which the agent's content-free filter skips; the dialog must say so.
REMEMBER_HIDDEN_TEXT = "Zeppelin hangar doors open only at dawn"
HIDDEN_WARNING = ("A one-line note becomes a heading; the agent's search skips heading-only"
                  " chunks — add a second line to make it findable")
WORKSPACE_MEMORY = ".grok/memory/demo-shop-5a7bd946/MEMORY.md"   # under the demo home

# Lint findings on the demo's rule files (`rulelens lint <demo repo> --format json`), which
# must reach the editor as diagnostics: (file, code, message fragment).
LINT_EXPECT = [
    ("CLAUDE.local.md", "RL201", "ignored by .gitignore:2"),
    ("AGENTS.local.md", "RL208", "AGENTS.local.md: read by none of Grok"),
]
# Debian's own interpreter: present on every machine here, never has rulelens installed.
PYTHON_WITHOUT_RULELENS = "/usr/bin/python3"


def _home_markers() -> dict[str, bool]:
    """Files that code-server and Chromium create in HOME when it is not redirected."""
    real = Path(os.path.expanduser("~"))
    paths = [".config/code-server", ".local/share/code-server", ".config/chromium",
             ".cache/ms-playwright"]
    return {p: (real / p).exists() for p in paths}


HOME_BEFORE = _home_markers()



@pytest.fixture(scope="module")
def workbench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    missing = missing_tools(VSIX)
    if missing:
        msg = (f"VS Code e2e tools missing: {', '.join(missing)}"
               " (run ./scripts/test, which installs them)")
        if os.environ.get("RULELENS_REQUIRE_VSCODE_E2E") == "1":
            pytest.fail(msg)
        pytest.skip(msg)

    tmp = tmp_path_factory.mktemp("vscode-e2e")
    build = ROOT / "examples" / "demo" / "build.py"
    out = subprocess.run([sys.executable, str(build), str(tmp / "demo")],
                         check=True, capture_output=True, text=True).stdout
    demo = dict(line.split("=", 1) for line in out.split())
    home = Path(demo["home"])
    xdg = tmp / "xdg"
    data = tmp / "cs"
    (data / "user" / "User").mkdir(parents=True)
    settings = {
        "rulelens.server.python": sys.executable,
        "workbench.startupEditor": "none", "workbench.tips.enabled": False,
        "security.workspace.trust.enabled": False, "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False, "update.mode": "none", "telemetry.telemetryLevel": "off",
        "chat.disableAIFeatures": True, "workbench.secondarySideBar.defaultVisibility": "hidden",
        "git.enabled": False,
    }
    (data / "user" / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    (data / "config.yaml").write_text("bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n")
    selftest = tmp / "selftest.json"
    env = {
        **os.environ,
        "HOME": str(home), "GROK_HOME": str(home / ".grok"),
        "XDG_CONFIG_HOME": str(xdg / "config"), "XDG_DATA_HOME": str(xdg / "data"),
        "XDG_CACHE_HOME": str(xdg / "cache"), "XDG_STATE_HOME": str(xdg / "state"),
        "PATH": f"{NODE24_BIN}:{os.environ.get('PATH', '')}",
        "RULELENS_SELFTEST_OUT": str(selftest),
        "RULELENS_SELFTEST_FILE": str(Path(demo["repo"]) / DEEP_FILE),
        "RULELENS_SELFTEST_QUERY": MEMORY_QUERY,
        "RULELENS_SELFTEST_DIAGNOSTICS": json.dumps(
            [str(Path(demo["repo"]) / name) for name, _, _ in LINT_EXPECT]),
    }
    base = [str(CODE_SERVER), "--config", str(data / "config.yaml"), "--auth", "none",
            "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
            "--disable-getting-started-override",
            "--user-data-dir", str(data / "user"), "--extensions-dir", str(data / "ext")]
    t = time.monotonic()
    subprocess.run([*base, "--install-extension", str(VSIX), "--force"], env=env, check=True,
                   capture_output=True, text=True, timeout=120)
    install_s = time.monotonic() - t
    installed = list((data / "ext").glob("rulelens.rulelens-*"))
    assert installed, f"the .vsix did not install into {data / 'ext'}"

    port = free_port()
    log = (tmp / "code-server.log").open("w")  # closed in the finally below
    proc = subprocess.Popen([*base, "--bind-addr", f"127.0.0.1:{port}", demo["repo"]], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = (tmp / "code-server.log").read_text()[-2000:]
                    raise RuntimeError("code-server did not come up: " + tail) from None
                time.sleep(0.2)
        yield {"url": url, "demo": demo, "tmp": tmp, "env": env, "selftest": selftest,
               "install_s": install_s, "home": home}
    finally:
        try:
            stop(proc)   # the whole process group, checked empty
        finally:
            log.close()


@pytest.fixture(scope="module")
def driven(workbench: dict[str, Any]) -> dict[str, Any]:
    """One pass of the Playwright driver over the running workbench; its JSON summary."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    result_out = workbench["tmp"] / "driver.json"
    drv_env = {
        **workbench["env"],
        "HOME": str(workbench["tmp"] / "chromium-home"),
        "CS_URL": workbench["url"], "DEMO_REPO": workbench["demo"]["repo"],
        "DEEP_FILE_NAME": "orders.py", "LENS_EXPECT": LENS_EXPECT,
        "TREE_EXPECT": json.dumps(TREE_EXPECT),
        "SELFTEST_OUT": str(workbench["selftest"]), "ARTIFACTS": str(ARTIFACTS),
        "PLAYWRIGHT_DIR": str(PLAYWRIGHT_DIR), "RESULT_OUT": str(result_out),
        "MEMORY_QUERY": MEMORY_QUERY, "MEMORY_EXPECT": MEMORY_FIRST,
        "MEMORY_OPEN_EXPECT": "MEMORY.md", "REMEMBER_TEXT": REMEMBER_TEXT,
        "REMEMBER_HIDDEN_TEXT": REMEMBER_HIDDEN_TEXT,
        "WORKSPACE_MEMORY": str(workbench["home"] / WORKSPACE_MEMORY),
        "PYTHON_WITHOUT_RULELENS": PYTHON_WITHOUT_RULELENS,
        "GROK_TRUST_FILE": str(workbench["home"] / ".grok" / "trusted_folders.toml"),
    }
    node = shutil.which("node", path=drv_env["PATH"]) or "node"
    t = time.monotonic()
    run = subprocess.run([node, str(DRIVER)], env=drv_env, capture_output=True, text=True,
                         timeout=300)
    print(run.stdout)
    result: dict[str, Any] = json.loads(result_out.read_text()) if result_out.exists() else {}
    result["driver_wall_s"] = round(time.monotonic() - t, 1)
    result["install_s"] = round(workbench["install_s"], 1)
    (ARTIFACTS / "vscode-e2e.json").write_text(json.dumps(result, indent=2))
    logs = sorted((workbench["tmp"] / "cs" / "user" / "logs").rglob("RuleLens.log"))
    if logs:
        shutil.copy(logs[-1], ARTIFACTS / "vscode-rulelens.log")
    assert run.returncode == 0 and result.get("ok"), f"driver failed:\n{run.stdout}\n{run.stderr}"
    return result


def test_memory_quick_pick_every_agent_grouped(driven: dict[str, Any]) -> None:
    """Issue 24: the agent toggle searches every agent's memory, grouped by agent (separator
    rows named after the agent, with the count), each hit marked injected at start or on
    demand; the demo home holds Claude Code and Gemini CLI memory."""
    rows = driven["memoryAgentRows"]
    text = "\n".join(rows)
    assert "every agent" in driven["memoryAgentTitle"], driven["memoryAgentTitle"]
    # Grouped: each agent's rows together, each row naming its agent and its mark.
    agents = [m.group(1) if (m := re.search(r":\d+-\d+\s*(.+?) · ", r)) else r for r in rows]
    assert [a for i, a in enumerate(agents) if i == 0 or agents[i - 1] != a] in (
        ["Claude Code", "Gemini CLI"], ["Gemini CLI", "Claude Code"]), rows
    assert "injected at start" in text and "on demand" in text, rows
    assert any("stripe_webhooks.md" in r and "Claude Code · on demand" in r for r in rows), rows
    assert not any(r.split("\n")[-1].strip() == "---" for r in rows), rows  # the matched line
    assert Path(ARTIFACTS / "vscode-memory-agents.png").stat().st_size > 10_000
    # Remember… asks which agent's memory: the agents present in the workspace first.
    agents = driven["rememberAgentRows"]
    assert agents[0].startswith("Grok"), agents
    assert any(r.startswith("Claude Code") for r in agents), agents


def _counts(headline: str) -> dict[str, int]:
    """``Grok 5 (+3 after trust) · Claude 3 · +4 more`` -> ``{"Grok": 5, "Claude": 3}``."""
    out = {}
    for part in headline.split(" · "):
        found = re.match(r"(?:from \S+: )?([A-Za-z][\w ]*?) (\d+)", part.strip())
        if found:
            out[found.group(1)] = int(found.group(2))
    return out


def test_code_lens_view_and_status_bar_as_a_person_sees_them(driven: dict[str, Any]) -> None:
    (lens,) = driven["lenses"]           # one lens: the per-agent headline, one line
    assert lens.startswith(LENS_EXPECT), lens
    assert driven["statusBar"] == lens, (driven["statusBar"], lens)   # the same words
    rows = driven["treeRows"]
    assert any("CLAUDE.local.md" in r and "gitignored" in r for r in rows), rows
    assert any("src/app/" in r and "below-start-dir" in r for r in rows), rows
    assert "start: ./" in driven["viewHeader"], driven["viewHeader"]
    # The lens carries each agent's start cost: `Grok 5 · 161 tok · Claude 3 · 33 tok …`.
    assert re.match(LENS_RE, lens), lens
    # The screenshot shows a match and a difference: the demo's recorded sessions.
    verdicts = " ".join(driven["sessionRows"])
    assert "Last session: ✓ matches your Grok session of 2026-09-01 13:40 UTC" in verdicts
    assert "Last session: ⚠ differs: CLAUDE.local.md predicted start, absent" in verdicts
    assert Path(ARTIFACTS / "vscode-active-rules.png").stat().st_size > 10_000


def test_extension_view_of_lenses_hovers_and_tree(driven: dict[str, Any]) -> None:
    st = driven["selftest"]
    assert st["ok"], st.get("error")
    assert st["server"]["state"] == "running"
    (lens,) = [x["title"] for x in st["lenses"]]
    assert lens.startswith(LENS_EXPECT) and st["statusBar"] == lens, (lens, st["statusBar"])
    hover = "\n".join(st["hovers"])
    assert any("src/app/AGENTS.md" in h for h in st["hovers"]), st["hovers"]
    headline = hover.split("**")[1]      # the hover opens with the full headline
    assert headline.startswith(lens.partition(" · +")[0]), (headline, lens)
    # What it costs, per agent, with each top file's share; ᵒ on what last sessions loaded.
    costs = hover.split("**What it costs**", 1)[1]
    grok_cost = re.search(r"^- Grok: (\d+) at start · \+0 on read — (.+)$", costs, re.M)
    assert grok_cost and f"Grok 5 · {grok_cost.group(1)} tok" in headline, costs[:400]
    assert re.search(r"AGENTS\.md \d+%", grok_cost.group(2)), grok_cost.group(2)
    assert re.search(r"^\| AGENTS\.md \| start ᵒ \|", hover, re.M), hover[:1500]
    items = st["tree"]["items"]
    # One group per enabled agent, in the registry's column order, each with the same count
    # as the headline (files at start + on read).
    groups = [i for i in items if "group" not in i]
    short = {a.display: a.short for a in AGENTS}
    order = [a.display for a in AGENTS]
    assert [g["label"] for g in groups] == sorted((g["label"] for g in groups), key=order.index)
    counts = _counts(headline)
    for g in groups:
        n = sum(int(m.group(1)) for m in re.finditer(r"(\d+) (?:at start|on read)",
                                                      g["description"]))
        assert counts[short[g["label"]]] == n, (g, counts)
    assert len(groups) == len(counts)
    agent_groups = [g["label"] for g in groups]
    assert st["tree"]["description"].startswith("start: ./ · orders.py"), st["tree"]
    # Each group whose agent's sessions RuleLens reads starts with the last session's verdict
    # (the demo has one recorded session per such agent; maybe still being checked).
    sessions = {i["group"]: i["label"] for i in items
                if i.get("group") and i["label"].startswith("Last session: ")}
    assert sorted(sessions) == ["Claude Code", "Codex CLI", "Gemini CLI", "Grok"], sessions
    items = [i for i in items if not i["label"].startswith("Last session: ")]
    # The file name first; its folder, when and why after it.
    grok = [(i["label"], i["description"]) for i in items if i.get("group") == "Grok"]
    assert [(label, desc.split(" · ")[0]) for label, desc in grok[:5]] == [
        ("1. personal.md", "~/.grok/rules/"), ("2. CLAUDE.md", "~/.claude/"),
        ("3. AGENTS.md", "./"), ("4. security.md", ".grok/rules/"),
        ("5. testing.md", ".claude/rules/")], grok
    # Every row ends with how sure it is: ᶜ from the agent's code (Grok, Codex), ᵈ from its
    # docs (Claude Code); the tooltip names the source.
    assert ("CLAUDE.local.md", "./ · not loaded: gitignored ᶜ") in grok, grok
    assert ("AGENTS.md", "src/app/ · not loaded: below-start-dir ᶜ") in grok, grok
    claude = [i["description"] for i in items if i.get("group") == "Claude Code"]
    # ᵒ: the file the agent's last session here shows it loaded (the stale Claude session
    # had ~/.claude/CLAUDE.md only).
    assert claude and all(d.endswith(("ᵈ", "†", "ᵒ")) for d in claude), claude
    observed = [(i["label"], i["description"]) for i in items
                if i.get("group") == "Claude Code" and i["description"].endswith("ᵒ")]
    assert [label for label, _d in observed] == ["1. CLAUDE.md"], observed
    # A new agent's group (the demo has .clinerules): Cline, from its code.
    cline = [i["description"] for i in items if i.get("group") == "Cline"
             and not i["label"].startswith("Other agents' files")]  # folded: no file, no mark
    assert "Cline" in agent_groups and cline and all(d.endswith(("ᶜ", "†")) for d in cline), cline
    codex = [(i["label"], i["description"]) for i in items if i.get("group") == "Codex CLI"]
    assert any(label == "AGENTS.override.md" and desc.startswith("src/ · may pull in")
               for label, desc in codex), codex
    for group in agent_groups:
        rows = [i for i in items if i.get("group") == group]
        shown = [(i["label"].split(". ", 1)[-1], i["description"].split(" · ")[0])
                 for i in rows]
        # No file in two groups of one agent (the old "loaded" + "only mentioned" clash).
        assert len(shown) == len(set(shown)), (group, shown)
        # Every not-loaded row carries its reason.
        assert all(": " in i["description"].split("not loaded", 1)[1] for i in rows
                   if "not loaded" in i["description"]), (group, rows)


def test_memory_search_quick_pick(driven: dict[str, Any]) -> None:
    pending = driven.get("memoryPending")
    assert not pending, f"the server did not answer rulelens/memorySearch: {pending}"
    assert driven["memoryTyped"] == MEMORY_QUERY
    search = driven["selftest"]["memorySearch"]
    first = search["results"][0]
    assert first["label"].endswith("  " + MEMORY_FIRST), search
    assert first["description"].startswith("~/.grok/memory/" + MEMORY_FOLDER), search
    assert first["result"]["agent_returns"], search
    assert MEMORY_FIRST in driven["memoryFirstRow"], driven["memoryFirstRow"]
    assert MEMORY_FOLDER in driven["memoryFirstRow"], driven["memoryFirstRow"]
    assert "agent returns it" in driven["memoryFirstRow"]
    # Score first, the matched sentence (not the chunk's [Context: …] prefix) as the detail.
    assert driven["memoryFirstLabel"].startswith("1.00  "), driven["memoryFirstLabel"]
    assert driven["memoryFirstDetail"].startswith("- Stripe webhooks are verified"), driven
    assert "[Context:" not in driven["memoryFirstRow"]
    # VS Code highlights the typed text where it occurs in the matched sentence.
    assert [h.lower() for h in driven["memoryDetailHighlights"]] == [MEMORY_QUERY], driven[
        "memoryDetailHighlights"]
    assert driven["memoryBestRows"] and MEMORY_FIRST in driven["memoryBestRows"][0]
    assert Path(ARTIFACTS / "vscode-memory-best.png").stat().st_size > 10_000
    explain = " ".join(driven["memoryExplainText"].split())  # the view wraps long lines
    assert "# Why this result: stripe webhook" in explain
    assert "## the agent's pipeline" in explain and "The agent returns this result." in explain
    assert "MEMORY.md" in driven["memoryOpenedTab"]
    assert driven["memorySelectionShown"], "the chunk's lines were not selected"
    wide = driven["memoryWideRows"]
    assert len(wide) >= len(driven["memoryRows"]) and MEMORY_FIRST in wide[0], wide
    assert Path(ARTIFACTS / "vscode-memory-search.png").stat().st_size > 10_000


def test_rendered_prompt_status_reindex_and_remember(driven: dict[str, Any],
                                                    workbench: dict[str, Any]) -> None:
    prompt = driven["promptText"]
    # Opened from Grok's "3. AGENTS.md" row: the prompt is revealed at that file's section
    # (the <system-reminder> opening line is scrolled above it).
    assert "## From: " in prompt and "repo/AGENTS.md" in prompt, prompt[:500]
    assert "workspace name" in driven["memoryStatusText"]
    assert "demo-shop-5a7bd946" in driven["memoryStatusText"]
    assert "Memory reindexed" in driven["reindexToast"]
    assert f"## {REMEMBER_TEXT}" in driven["rememberDialog"], driven["rememberDialog"]
    assert "Remembered in" in driven["rememberToast"]
    memory = Path(workbench["home"]) / ".grok" / "memory" / "MEMORY.md"
    assert memory.read_text(encoding="utf-8").endswith(f"\n\n## {REMEMBER_TEXT}")


def test_remember_warns_when_the_agents_search_would_skip_the_note(
        driven: dict[str, Any], workbench: dict[str, Any]) -> None:
    """The server's dry run drives the dialog: a heading-only note gets its warning."""
    dialog = driven["rememberHiddenDialog"]
    assert f"## {REMEMBER_HIDDEN_TEXT}" in dialog, dialog
    assert HIDDEN_WARNING in dialog, dialog
    assert HIDDEN_WARNING not in driven["rememberDialog"], "the findable note was warned about"
    # Cancelled: the workspace MEMORY.md the driver removed was not recreated.
    assert not (Path(workbench["home"]) / WORKSPACE_MEMORY).exists()
    assert Path(ARTIFACTS / "vscode-remember-warning.png").stat().st_size > 10_000


def test_lint_findings_reach_the_editor_as_diagnostics(driven: dict[str, Any]) -> None:
    st = driven["selftest"]
    diagnostics = st["diagnostics"]
    for name, code, fragment in LINT_EXPECT:
        mine = [d for d in diagnostics if d["uri"].endswith("/" + name)]
        assert any(d["code"] == code and fragment in d["message"] for d in mine), (name, mine)
    # Only rule files get lint diagnostics: the nested source file has none.
    assert not [d for d in diagnostics if d["uri"].endswith("/" + DEEP_FILE)], diagnostics


def test_settings_changes_reach_the_server(driven: dict[str, Any]) -> None:
    rows = driven["agentCwdChangedRows"]
    assert not any("below-start-dir" in r for r in rows), rows
    assert any(re.search(r"7\. AGENTS\.md\s*src/app/", r) for r in rows), rows
    assert "start: src/app/" in driven["agentCwdHeader"], driven["agentCwdHeader"]


def test_server_that_cannot_start_gets_one_actionable_message(driven: dict[str, Any]) -> None:
    assert "/nonexistent/python3" in driven["errorToast"], driven["errorToast"]
    assert "Open Setting" in driven["errorToast"]
    assert driven["errorToasts"] == 1, "expected exactly one notification"
    assert driven["settingOpened"]
    toast = driven["missingPackageToast"]
    assert f'"rulelens" package is not installed for {PYTHON_WITHOUT_RULELENS}' in toast, toast
    assert driven["missingPackageToasts"] == 1, "expected exactly one notification"


def test_untrusted_folder_line_and_status_bar(driven: dict[str, Any]) -> None:
    """Without the demo's `grok --trust` grant, Grok 1.0.45 withholds the project files."""
    assert driven["trustRow"].startswith("Folder not trusted yet: ")
    assert "project files withheld; run `grok --trust` here" in driven["trustRow"]
    # (named from its start directory when sessions start elsewhere: `from src/app/: …`)
    assert re.match(r"(from \S+: )?Grok \d+ \(\+\d+ after trust\) · \d+ tok",
                    driven["trustStatus"]), driven["trustStatus"]
    assert Path(ARTIFACTS / "vscode-untrusted.png").stat().st_size > 10_000


def test_nothing_written_to_the_real_home(driven: dict[str, Any]) -> None:
    after = _home_markers()
    assert {k for k, v in after.items() if v and not HOME_BEFORE[k]} == set()
