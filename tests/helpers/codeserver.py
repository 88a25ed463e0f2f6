"""code-server for end-to-end tests: the tools' paths, a workbench process, its teardown.

The tools come from ``tests/e2e/vscode/install-tools.sh`` under ``$RULELENS_TOOLS``. A
workbench runs in its own process group, which ``stop`` kills and checks empty. With
``offline=True`` it runs in a network namespace of its own (``unshare -n``: no interface
at all, not even loopback) and listens on a unix socket, which a small relay in this process
exposes on a local TCP port for the browser; nothing code-server starts (the extension host,
``python -m venv``, pip) can reach any network.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TOOLS = Path(os.environ.get("RULELENS_TOOLS") or Path.home() / ".cache" / "rulelens-tools")
CODE_SERVER = TOOLS / "code-server-4.139.1" / "node_modules" / ".bin" / "code-server"
NODE24_BIN = TOOLS / "node24" / "node_modules" / "node" / "bin"
PLAYWRIGHT_DIR = TOOLS / "playwright-1.65.1"
CHROMIUM = Path("/usr/bin/chromium")

# Settings that keep the workbench quiet and deterministic in a test.
QUIET_SETTINGS = {
    "workbench.startupEditor": "none", "workbench.tips.enabled": False,
    "security.workspace.trust.enabled": False, "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False, "update.mode": "none", "telemetry.telemetryLevel": "off",
    "chat.disableAIFeatures": True, "workbench.secondarySideBar.defaultVisibility": "hidden",
    "git.enabled": False,
}


def missing_tools(vsix: Path) -> list[str]:
    need = {"code-server": CODE_SERVER, "node 24": NODE24_BIN / "node",
            "playwright-core": PLAYWRIGHT_DIR, "chromium": CHROMIUM, "vsix": vsix}
    return [name for name, p in need.items() if not p.exists()]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


class Workbench:
    """A user-data and extensions directory pair, and the code-server that serves them."""

    def __init__(self, data: Path, env: dict[str, str], settings: dict[str, object]) -> None:
        self.data, self.env = data, env
        (data / "user" / "User").mkdir(parents=True, exist_ok=True)
        (data / "user" / "User" / "settings.json").write_text(
            json.dumps({**QUIET_SETTINGS, **settings}, indent=2))
        (data / "config.yaml").write_text("bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n")
        self.base = [str(CODE_SERVER), "--config", str(data / "config.yaml"), "--auth", "none",
                     "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
                     "--disable-getting-started-override", "--user-data-dir", str(data / "user"),
                     "--extensions-dir", str(data / "ext")]

    def settings(self, changes: dict[str, object]) -> None:
        """Change user settings (as a person editing settings.json between sessions)."""
        path = self.data / "user" / "User" / "settings.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **changes}, indent=2))

    @property
    def global_storage(self) -> Path:
        return self.data / "user" / "User" / "globalStorage"

    def install(self, vsix: Path) -> float:
        """Install the .vsix; the seconds it took."""
        t = time.monotonic()
        subprocess.run([*self.base, "--install-extension", str(vsix), "--force"], env=self.env,
                       check=True, capture_output=True, text=True, timeout=120)
        return time.monotonic() - t

    def logs(self, name: str) -> list[Path]:
        """Output-channel logs called ``name`` of every session so far, oldest first."""
        return sorted((self.data / "user" / "logs").rglob(f"*{name}.log"))

    @contextmanager
    def serve(self, folder: str, log: Path, *, offline: bool = False) -> Iterator[str]:
        """Run code-server on ``folder`` until the block ends; yields its base URL."""
        port = free_port()
        sock = self.data / "cs.sock"
        sock.unlink(missing_ok=True)
        listen = ["--socket", str(sock)] if offline else ["--bind-addr", f"127.0.0.1:{port}"]
        argv = [*self.base, *listen, folder]
        if offline:
            argv = [shutil.which("unshare") or "/usr/bin/unshare", "-n", *argv]
        with log.open("a") as out:
            proc = subprocess.Popen(argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        relay = _Relay(port, sock) if offline else None
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(url + "/healthz", timeout=2).read()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("code-server did not come up: "
                                           + log.read_text()[-2000:]) from None
                    time.sleep(0.2)
            yield url
        finally:
            stop(proc)
            if relay:
                relay.close()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL, the whole process group; fail if anything of it survives."""
    pgid = proc.pid
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not group_alive(pgid):
            break
        os.killpg(pgid, sig)
        end = time.monotonic() + 5
        while group_alive(pgid) and time.monotonic() < end:
            time.sleep(0.1)
    proc.wait(timeout=10)
    assert not group_alive(pgid), "processes of code-server's group survived SIGKILL"


class _Relay:
    """127.0.0.1:port -> a unix socket, byte for byte (HTTP and websockets alike)."""

    def __init__(self, port: int, sock: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.sock = sock
        started = threading.Event()

        async def main() -> None:
            self.server = await asyncio.start_server(self._client, "127.0.0.1", port)
            started.set()
            await self.server.serve_forever()

        def run() -> None:
            with contextlib.suppress(asyncio.CancelledError):
                self.loop.run_until_complete(main())

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        started.wait(10)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(str(self.sock))
        except OSError:
            writer.close()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        for task in asyncio.all_tasks(self.loop):
            self.loop.call_soon_threadsafe(task.cancel)
        self.thread.join(5)
