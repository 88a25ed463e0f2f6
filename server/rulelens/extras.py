"""How to add an optional extra to the environment RuleLens runs in, from where it runs.

RuleLens is not on a package index, so ``pip install 'rulelens[local]'`` fails for most
users. What works everywhere is installing the extra's own packages (which are on PyPI) next
to the installed RuleLens, with the tool that manages that environment: ``pipx inject`` for a
pipx venv, ``uv pip install --python`` for a uv-made one (those have no pip), and
``python -m pip install`` otherwise (a venv, the VS Code extension's bundled environment, a
checkout's ``.venv``). The requirement list comes from the installed distribution's metadata.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def extra_requirements(extra: str, dist: str = "rulelens") -> list[str]:
    """The requirements that ``dist[extra]`` adds, without their markers."""
    try:
        requires = metadata.requires(dist) or []
    except metadata.PackageNotFoundError:
        return []
    out = []
    for req in requires:
        spec, _, marker = req.partition(";")
        found = _EXTRA_MARKER.search(marker)
        if found and found.group(1) == extra:
            out.append(spec.strip())
    return out


def missing_requirements(extra: str, dist: str = "rulelens") -> list[str]:
    """The requirements of ``dist[extra]`` whose distribution is not installed here."""
    missing = []
    for req in extra_requirements(extra, dist):
        name = re.split(r"[\s<>=!~\[;(]", req, maxsplit=1)[0]
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(req)
    return missing


def _made_by_uv(prefix: Path) -> bool:
    try:
        cfg = (prefix / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.split("=", 1)[0].strip() == "uv" for line in cfg.splitlines())


def install_command(extra: str) -> str:
    """A shell command that adds ``extra``'s packages to the running environment."""
    reqs = " ".join(shlex.quote(r) for r in extra_requirements(extra))
    if not reqs:
        reqs = shlex.quote(f"rulelens[{extra}]")
    prefix = Path(sys.prefix)
    if "pipx" in prefix.parts and prefix.parent.name == "venvs":
        return f"pipx inject {shlex.quote(prefix.name)} {reqs}"
    if _made_by_uv(prefix):
        return f"uv pip install --python {shlex.quote(sys.executable)} {reqs}"
    return f"{shlex.quote(sys.executable)} -m pip install {reqs}"


def install_hint(extra: str) -> str:
    """The sentence error messages end with: what to run, and that a restart picks it up."""
    return f"add it with: {install_command(extra)} (then restart RuleLens)"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m rulelens.extras EXTRA``: one JSON line ``{extra, missing, command}`` about
    the running environment (the VS Code extension asks its server's interpreter)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m rulelens.extras EXTRA", file=sys.stderr)
        return 2
    extra = args[0]
    print(json.dumps({"extra": extra, "missing": missing_requirements(extra),
                      "command": install_command(extra)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
