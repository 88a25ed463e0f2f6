"""Real Emacs (Debian's emacs-nox 28 with only elpa-eglot: no markdown-mode), ``emacs -Q
--batch``, through exactly the recipe of docs/editors.md.

The test reads the recipe from docs/editors.md and puts in only the checkout's path and the
server command. The driver (``tests/e2e/emacs/driver.el``) opens a Markdown file of the demo,
runs the command loop's ``post-command-hook`` once (as after ``C-x C-f``), waits for eglot
to attach by itself, and asks for the code lenses, the agents and the chain the way
``rulelens-code-lenses``, ``rulelens-agents`` and ``rulelens-chain`` do for a user.
``scripts/test`` installs Emacs and sets RULELENS_REQUIRE_EMACS_E2E=1, so a missing Emacs
fails there instead of skipping.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "demo"))
from build import build  # noqa: E402

DRIVER = ROOT / "tests" / "e2e" / "emacs" / "driver.el"
#: A Markdown file that is no agent's instruction file: its lens is the per-agent headline.
DEEP = os.path.join("docs", "README.md")


def documented_recipe(command: list[str]) -> str:
    """The elisp block of docs/editors.md's Emacs section, with this checkout's path and
    ``command`` in place of the placeholders (and nothing else changed)."""
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    section = text.split("## Emacs (eglot)", 1)[1]
    recipe = section.split("```elisp\n", 1)[1].split("```", 1)[0]
    assert recipe.count("/path/to/rulelens") == 1 and recipe.count("'(\"rulelens\" \"serve\")") == 1
    elisp = "'(" + " ".join(json.dumps(arg) for arg in command) + ")"
    return (recipe.replace("/path/to/rulelens", str(ROOT))
            .replace("'(\"rulelens\" \"serve\")", elisp, 1))


def _emacs() -> str:
    exe = os.environ.get("RULELENS_EMACS") or shutil.which("emacs")
    if exe:
        probe = subprocess.run([exe, "--batch", "-q", "--eval",
                                "(progn (require 'package) (package-initialize)"
                                " (princ (if (require 'eglot nil t) \"eglot\" \"none\")))"],
                               capture_output=True, text=True, timeout=60)
        if probe.stdout.strip().endswith("eglot"):
            return exe
    if os.environ.get("RULELENS_REQUIRE_EMACS_E2E") == "1":
        pytest.fail(f"Emacs with eglot not found (looked at {exe}); run scripts/test")
    pytest.skip("Emacs with eglot not installed (apt-get install emacs-nox elpa-eglot)")


def test_eglot_attaches_and_gets_the_lens_and_the_chain(tmp_path: pathlib.Path) -> None:
    emacs = _emacs()
    demo = build(str(tmp_path / "demo"))
    repo, home = demo["repo"], demo["home"]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GROK_", "XAI_", "XDG_", "EMACS"))}
    env.update(HOME=home, GROK_HOME=demo["grok_home"], OUT=str(tmp_path / "result.json"),
               FILE=os.path.join(repo, DEEP), XDG_CACHE_HOME=str(tmp_path / "cache"))
    recipe = tmp_path / "recipe.el"
    recipe.write_text(documented_recipe([sys.executable, "-m", "rulelens", "serve"]),
                      encoding="utf-8")
    proc = subprocess.run(["timeout", "-k", "5", "120", emacs, "-Q", "--batch", "-l",
                           str(recipe), "-l", str(DRIVER)], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=150,
                          stdin=subprocess.DEVNULL)
    out = tmp_path / "result.json"
    assert out.exists(), proc.stdout + proc.stderr
    res = json.loads(out.read_text(encoding="utf-8"))
    assert proc.returncode == 0, (res.get("error"), proc.stderr[-2000:])
    # Without markdown-mode the .md file opens in Text mode, and eglot started by itself.
    assert res["markdown_mode"] is False and res["major_mode"] == "text-mode", res
    assert res["attached"] is True and res["server_name"] == "rulelens"
    assert res["code_lens_provider"] is True
    # One answer per screen: the one lens, the agents buffer and the hover give the same
    # per-agent headline, for sessions started in the workspace folder.
    skipped = len(res["chain_skipped"])
    (lens,) = res["lenses"]
    assert lens == res["agents_lens"], res["lenses"]
    assert re.match(r"Grok \d+ · (\d+ tok · )?Claude \d+", lens), lens
    assert res["headline"].startswith(lens.partition(" · +")[0])
    agents = res["agents_buffer"].splitlines()
    assert agents[0] == f"RuleLens · {os.path.join(repo, DEEP)}"
    assert agents[1] == res["headline"] + " · sessions start in " + repo.replace(home, "~", 1)
    assert res["hover"].startswith(f"**{res['headline']}** · sessions started in `./`")
    assert "Claude Code" in agents and "Codex CLI" in agents
    # The chain as the server sent it (its exact contents are tests/lsp's business): home
    # rules first, then the repository's, and the gitignored CLAUDE.local.md skipped.
    rel = [os.path.relpath(p, repo) if p.startswith(repo) else "~/" + os.path.relpath(p, home)
           for p in res["chain_files"]]
    assert rel[:3] == ["~/.grok/rules/personal.md", "~/.claude/CLAUDE.md", "AGENTS.md"], rel
    assert os.path.join(repo, "CLAUDE.local.md") + " [gitignored]" in res["chain_skipped"]
    # rulelens-chain's buffer shows exactly that answer, in load order.
    buffer = res["chain_buffer"].splitlines()
    files = len(res["chain_files"])
    assert buffer[0] == f"RuleLens · {os.path.join(repo, DEEP)}"
    assert buffer[1] == f"Loaded ({files}), first to last; the last wins:"
    assert [line.split()[-1] for line in buffer[2:2 + files]] == res["chain_files"]
    assert [line.split()[0] for line in buffer[2:2 + files]] == [str(i) for i in
                                                                  range(1, files + 1)]
    assert buffer[2 + files] == f"Skipped ({skipped}):"
    assert f"  {os.path.join(repo, 'CLAUDE.local.md')}  [gitignored]" in buffer[3 + files:]
