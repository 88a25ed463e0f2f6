#!/usr/bin/env python3
"""Build what users install: the RuleLens wheel and sdist, and a self-contained VS Code .vsix.

    python scripts/package.py                       # dist/: wheel + sdist, linux-x64 .vsix
    python scripts/package.py --target darwin-arm64 # any VS Code target, from any machine
    python scripts/package.py --no-vsix             # wheel + sdist only

Steps:

1. ``python -m build`` writes ``dist/rulelens-<v>-py3-none-any.whl`` and
   ``dist/rulelens-<v>.tar.gz``.
2. For every supported CPython version (SUPPORTED_PYTHONS) ``pip download --only-binary=:all:
   --python-version X --platform <the target's wheel tags>`` fetches the wheels of RuleLens'
   dependencies (not the ``local`` extra) from the package index into a cache under
   ``$RULELENS_TOOLS/wheelhouse/<target>/cp3XX``. A cache whose requirement list matches is
   reused without asking the index. pip's own wheel (pure Python, for the oldest supported
   Python) goes to ``$RULELENS_TOOLS/wheelhouse/pip``.
3. The wheels (deduplicated) and ``manifest.json`` go to ``vscode-client/bundled/``, then
   ``vsce package --target <target>`` writes ``dist/rulelens-<target>.vsix``.

The extension makes a venv without pip and installs from ``bundled/`` by running the bundled
pip wheel (``python pip.whl/pip install --no-index ... pip.whl rulelens.whl``) on first
activation (vscode-client/src/bootstrap.ts), so the .vsix needs no network and skips
ensurepip. Prints the sizes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "vscode-client"
BUNDLED = CLIENT / "bundled"
DIST = ROOT / "dist"
TOOLS = Path(os.environ.get("RULELENS_TOOLS") or Path.home() / ".cache" / "rulelens-tools")

SUPPORTED_PYTHONS = ["3.11", "3.12", "3.13", "3.14"]

# VS Code's `vsce package --target` names -> the wheel platform tags pip may pick for it.
# pip expands neither manylinux_2_28 to manylinux_2_17 nor musllinux_1_2 to 1_1, so each
# accepted tag is listed; macOS tags are expanded by pip to every older release. No alpine-*
# (musllinux) targets: sqlite-vec publishes no musllinux wheels; no win32-arm64: PyYAML has no
# win_arm64 wheels. Checked: every target here resolves for every SUPPORTED_PYTHONS.
TARGET_PLATFORMS: dict[str, list[str]] = {
    "linux-x64": ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
                  "manylinux_2_5_x86_64", "manylinux1_x86_64"],
    "linux-arm64": ["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"],
    "darwin-x64": ["macosx_11_0_x86_64", "macosx_10_9_universal2"],
    "darwin-arm64": ["macosx_11_0_arm64", "macosx_10_9_universal2"],
    "win32-x64": ["win_amd64"],
}


def run(argv: list[str | Path], **kw: object) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], check=True, **kw)  # type: ignore[call-overload]


def project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)["project"]  # type: ignore[no-any-return]


def build_dists(python: str) -> Path:
    """``python -m build`` into dist/; the wheel's path."""
    version = str(project()["version"])
    for old in DIST.glob("rulelens-*"):
        if old.suffix != ".vsix":
            old.unlink()
    proc = subprocess.run([python, "-m", "build", "--outdir", str(DIST), str(ROOT)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"python -m build failed:\n{proc.stdout}{proc.stderr}")
    wheel = DIST / f"rulelens-{version}-py3-none-any.whl"
    if not wheel.is_file() or not (DIST / f"rulelens-{version}.tar.gz").is_file():
        raise SystemExit(f"python -m build did not write the wheel and sdist into {DIST}")
    return wheel


def dependency_wheels(python: str, target: str, py_version: str) -> Path:
    """The dependencies' wheels for one Python version and target, cached by requirement list."""
    requirements = sorted(str(r) for r in project()["dependencies"])  # type: ignore[attr-defined]
    platforms = TARGET_PLATFORMS[target]
    stamp_text = json.dumps({"requirements": requirements, "platforms": platforms})
    cache = TOOLS / "wheelhouse" / target / ("cp" + py_version.replace(".", ""))
    stamp = cache / "requirements.json"
    if stamp.is_file() and stamp.read_text() == stamp_text and any(cache.glob("*.whl")):
        return cache
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    argv: list[str | Path] = [python, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                              "--only-binary=:all:", "--python-version", py_version,
                              "--implementation", "cp", "-d", cache]
    for tag in platforms:
        argv += ["--platform", tag]
    # Quiet unless it fails: pip warns about every index location of a machine's pip.conf.
    proc = subprocess.run([str(a) for a in [*argv, *requirements]], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SystemExit(f"pip download failed for {target} / Python {py_version}:\n"
                         f"{proc.stdout}{proc.stderr}")
    stamp.write_text(stamp_text)
    return cache


def pip_wheel(python: str) -> Path:
    """pip's wheel (py3-none-any), cached: the extension runs pip from it."""
    cache = TOOLS / "wheelhouse" / "pip"
    found = sorted(cache.glob("pip-*-py3-none-any.whl"))
    if found:
        return found[-1]
    cache.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([python, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                           "--only-binary=:all:", "--no-deps", "--python-version",
                           SUPPORTED_PYTHONS[0], "-d", str(cache), "pip"],
                          capture_output=True, text=True)
    found = sorted(cache.glob("pip-*-py3-none-any.whl"))
    if proc.returncode != 0 or not found:
        raise SystemExit(f"pip download of pip failed:\n{proc.stdout}{proc.stderr}")
    return found[-1]


def bundle(wheel: Path, dirs: list[Path], target: str, pip: Path) -> None:
    """vscode-client/bundled/: every wheel once, and what the extension needs to know."""
    shutil.rmtree(BUNDLED, ignore_errors=True)
    wheels = BUNDLED / "wheels"
    wheels.mkdir(parents=True)
    shutil.copy2(wheel, wheels)
    shutil.copy2(pip, wheels)
    for d in dirs:
        for w in d.glob("*.whl"):
            if not (wheels / w.name).exists():
                shutil.copy2(w, wheels)
    digest = hashlib.sha256()
    for w in sorted(wheels.iterdir()):
        digest.update(w.name.encode() + b"\0" + w.read_bytes())
    manifest = {
        "target": target,
        "rulelens": {"version": str(project()["version"]), "wheel": wheel.name},
        "pythons": SUPPORTED_PYTHONS,
        # Changes whenever any bundled wheel does: the extension reinstalls when it differs.
        "sha256": digest.hexdigest(),
        "extras_not_bundled": list(project().get("optional-dependencies", {})),  # type: ignore[call-overload]
        "pip": pip.name,
    }
    (BUNDLED / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def package_vsix(target: str) -> Path:
    out = CLIENT / "dist" / f"rulelens-{target}.vsix"
    out.parent.mkdir(exist_ok=True)
    run([CLIENT / "node_modules" / ".bin" / "vsce", "package", "--no-dependencies",
         "--target", target, "-o", out], cwd=CLIENT, stdout=subprocess.DEVNULL)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="linux-x64", choices=sorted(TARGET_PLATFORMS))
    parser.add_argument("--no-vsix", action="store_true", help="only the wheel and sdist")
    args = parser.parse_args()
    DIST.mkdir(exist_ok=True)
    wheel = build_dists(sys.executable)
    print(f"wheel: {wheel.name} ({wheel.stat().st_size / 1e3:.0f} kB)")
    if args.no_vsix:
        return 0
    dirs = [dependency_wheels(sys.executable, args.target, v) for v in SUPPORTED_PYTHONS]
    bundle(wheel, dirs, args.target, pip_wheel(sys.executable))
    size = sum(p.stat().st_size for p in (BUNDLED / "wheels").iterdir())
    print(f"bundled: {len(list((BUNDLED / 'wheels').iterdir()))} wheels, {size / 1e6:.1f} MB")
    vsix = package_vsix(args.target)
    print(f"vsix: {vsix} ({vsix.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
