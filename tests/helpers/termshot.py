"""A terminal editor on a real screen, for end-to-end screenshots: the editor runs in a
private tmux server, its screen is read with ``capture-pane`` (text, for assertions) and
rendered to PNG by headless Chromium (for people: ``artifacts/``).

Only what a terminal shows is rendered: the ANSI colours of the pane, in a monospace font.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_BASIC = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd",
          "#e5e5e5"]
_BRIGHT = ["#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db",
           "#ffffff"]
FG, BG = "#d4d4d4", "#1e1e1e"


def _xterm(n: int) -> str:
    """The colour of xterm-256 index ``n``."""
    if n < 8:
        return _BASIC[n]
    if n < 16:
        return _BRIGHT[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return f"#{steps[n // 36]:02x}{steps[(n // 6) % 6]:02x}{steps[n % 6]:02x}"
    level = 8 + (n - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


def ansi_to_html(text: str, title: str) -> str:
    """The pane's text with its SGR colours as HTML spans."""
    out: list[str] = []
    fg, bg, bold, reverse = FG, BG, False, False
    pos = 0

    def emit(chunk: str) -> None:
        if not chunk:
            return
        f, b = (bg, fg) if reverse else (fg, bg)
        weight = "font-weight:bold;" if bold else ""
        out.append(f'<span style="color:{f};background:{b};{weight}">{html.escape(chunk)}</span>')

    for m in _SGR.finditer(text):
        emit(text[pos:m.start()])
        pos = m.end()
        codes = [int(c) if c else 0 for c in m.group(1).split(";")] or [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                fg, bg, bold, reverse = FG, BG, False, False
            elif c == 1:
                bold = True
            elif c == 22:
                bold = False
            elif c == 7:
                reverse = True
            elif c == 27:
                reverse = False
            elif 30 <= c <= 37:
                fg = _BASIC[c - 30]
            elif 90 <= c <= 97:
                fg = _BRIGHT[c - 90]
            elif 40 <= c <= 47:
                bg = _BASIC[c - 40]
            elif 100 <= c <= 107:
                bg = _BRIGHT[c - 100]
            elif c == 39:
                fg = FG
            elif c == 49:
                bg = BG
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    colour = _xterm(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    colour = "#{:02x}{:02x}{:02x}".format(*codes[i + 2:i + 5])
                    i += 4
                else:
                    colour = FG if c == 38 else BG
                if c == 38:
                    fg = colour
                else:
                    bg = colour
                i += 1
            i += 1
    emit(text[pos:])
    return ("<!doctype html><meta charset='utf-8'><title>" + html.escape(title) + "</title>"
            f"<body style='margin:0;background:{BG}'><pre style=\"margin:8px;font:14px/1.25"
            " 'DejaVu Sans Mono',monospace\">" + "".join(out) + "</pre></body>")


def render_png(ansi_text: str, png: Path, title: str, width: int = 1400,
               height: int = 900) -> Path:
    """Render a captured pane to ``png`` with headless Chromium; returns ``png``."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rulelens-shot-") as tmp:
        page = Path(tmp) / "screen.html"
        page.write_text(ansi_to_html(ansi_text, title), encoding="utf-8")
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", "--no-first-run", f"--user-data-dir={tmp}/profile",
                        f"--window-size={width},{height}", f"--screenshot={png}",
                        page.as_uri()], check=True, capture_output=True, timeout=60,
                       # Chromium writes ~/.config/chromium and ~/.pki whatever the
                       # profile dir: give it a home of its own, never the user's.
                       env={**os.environ, "HOME": tmp, "XDG_CONFIG_HOME": f"{tmp}/config",
                            "XDG_CACHE_HOME": f"{tmp}/cache"})
    return png


class Screen:
    """``command`` running in a private tmux server of ``cols`` x ``rows``."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str], cwd: str,
                 cols: int = 160, rows: int = 48) -> None:
        self.socket = f"rulelens-shot-{os.getpid()}-{id(self)}"
        self.env = dict(env)
        self.env.setdefault("TERM", "xterm-256color")
        self.env["COLORTERM"] = "truecolor"
        cmd = " ".join(_quote(c) for c in command)
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d",
                        "-x", str(cols), "-y", str(rows), cmd], env=self.env, cwd=cwd,
                       check=True, timeout=30)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], env=self.env, check=True,
                              capture_output=True, text=True, timeout=30).stdout

    def text(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "0")

    def ansi(self) -> str:
        return self._tmux("capture-pane", "-p", "-e", "-t", "0")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "0", *keys)

    def wait_for(self, *needles: str, timeout: float = 60.0) -> str:
        """The screen once every needle shows on it (polled), or an AssertionError."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.text()
            if all(n in screen for n in needles):
                return screen
            time.sleep(0.1)  # polling the screen: tmux has no "changed" event to await
        raise AssertionError(f"{needles} never showed; the screen was:\n{screen}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], env=self.env,
                       capture_output=True, timeout=30, check=False)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"
