"""docs/checks.md is generated from the registry; code and docs must agree."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from rulelens.lint.docs import render
from rulelens.lint.registry import CHECKS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def test_checks_md_matches_the_registry() -> None:
    with open(os.path.join(ROOT, "docs", "checks.md"), encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == render(), (
        "docs/checks.md is stale: run `python -m rulelens.lint.docs > docs/checks.md`")
    sections = re.findall(r"^### (RL\d{3})$", committed, re.MULTILINE)
    assert sections == [c.code for c in CHECKS]


def test_config_md_names_every_threshold() -> None:
    from rulelens.lint.config import THRESHOLD_NAMES

    with open(os.path.join(ROOT, "docs", "config.md"), encoding="utf-8") as fh:
        text = fh.read()
    missing = [n for n in THRESHOLD_NAMES if f"`{n}`" not in text]
    assert missing == []


def test_core_never_imports_the_lsp_stack() -> None:
    code = ("import sys, rulelens.lint, rulelens.lint.engine, rulelens.lint.cli;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')];"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
