"""``rulelens lint --fix`` against other writers of the same rule file (issue 19, defect 2).

The CLI runs as a real process under a timeout while a second real process writes the
file: an appender (``open(..., "ab")`` per line, as an editor's or agent's log-style write
does, taking no lock of ours) or a replacer (temporary file + ``os.replace``, as editors
save). Each round the writer starts its burst at a random moment of the lint run, so
over the rounds it lands before the lint's read, between the read and the write, and
during or after the write. Whatever the timing, no byte another writer put in the file
may be lost, and a fix is written only over the bytes it was computed from.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adversarial.hostile import TIMEOUT_S, Tree, assert_clean, make_tree

ROUNDS = 50
RULE = ".claude/rules/py.md"
ORIGINAL = '---\npaths: "src/**"\n---\nUse hints.\n'
FIXED = '---\npaths:\n  - "src/**"\n---\nUse hints.\n'
CHANGED = "changed since it was linted — nothing written; re-run"

#: argv[1]: file, argv[2]: "append" | "replace", argv[3]: when the burst starts (``time.time``
#: of this machine, so the writer's own start-up does not shift it), argv[4]: round. Prints
#: what it wrote, one item a line, after each write.
WRITER = r"""
import os, sys, time
path, mode, at, rnd = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
time.sleep(max(0.0, at - time.time()))
for i in range(6 if mode == "append" else 2):
    if mode == "append":
        line = f"appended {rnd}.{i}\n"
        with open(path, "ab") as fh:
            fh.write(line.encode())
        print(line, end="", flush=True)
    else:
        body = f'---\npaths: "src/**"\n---\nUse hints.\nversion {rnd}.{i}\n'
        tmp = path + f".tmp{i}"
        with open(tmp, "w") as fh:
            fh.write(body)
        os.replace(tmp, path)
        print(f"version {rnd}.{i}", flush=True)
    time.sleep(0.002 * (i % 3))
"""


def _tree(tmp_path: Path) -> tuple[Tree, Path]:
    tree = make_tree(tmp_path)
    (tree.repo / "src").mkdir()
    (tree.repo / "src" / "app.py").write_text("print('hi')\n")
    rule = tree.repo / RULE
    rule.parent.mkdir(parents=True)
    return tree, rule


class Aim:
    """Where the bursts are aimed, from uncontended ``lint --fix`` runs: how long a run
    takes and when in it the fix lands on disk (the file's new mtime). The read-to-write
    window is a few milliseconds just before that moment, so half the rounds aim there and
    the other half anywhere in the run (before the read, during, after the write)."""

    def __init__(self, tree: Tree, rule: Path) -> None:
        took, wrote = [], []
        for _ in range(3):
            rule.write_text(ORIGINAL)
            start = time.time()
            done = subprocess.run([sys.executable, "-m", "rulelens", "lint", "--fix",
                                   str(rule)], cwd=tree.repo, env=tree.env,
                                  capture_output=True, timeout=TIMEOUT_S, check=False)
            took.append(time.time() - start)
            wrote.append(rule.stat().st_mtime - start)
            assert_clean(done)
            assert rule.read_text() == FIXED
        self.run, self.write_at = max(took), sorted(wrote)[1]

    def delay(self, rng: random.Random, rnd: int) -> float:
        if rnd % 2:
            return rng.uniform(self.write_at - 0.04, self.write_at + 0.002)
        return rng.uniform(0.4 * self.run, 1.1 * self.run)


def _race(tree: Tree, rule: Path, mode: str, rnd: int, delay: float
          ) -> tuple[subprocess.CompletedProcess[bytes], list[str]]:
    """One lint --fix run with the writer's burst starting ``delay`` s after it."""
    start = time.time()
    lint = subprocess.Popen([sys.executable, "-m", "rulelens", "lint", "--fix", str(rule)],
                            cwd=tree.repo, env=tree.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    writer = subprocess.run([sys.executable, "-c", WRITER, str(rule), mode,
                             repr(start + delay), str(rnd)], capture_output=True, text=True,
                            timeout=TIMEOUT_S, check=True)
    out, err = lint.communicate(timeout=TIMEOUT_S)
    done = subprocess.CompletedProcess(lint.args, lint.returncode, out, err)
    assert_clean(done)
    return done, writer.stdout.splitlines(keepends=True)


def test_fix_racing_an_appender_loses_no_byte(tmp_path: Path) -> None:
    tree, rule = _tree(tmp_path)
    rng = random.Random(19)
    aim = Aim(tree, rule)
    outcomes = {"fixed": 0, "refused": 0}
    for rnd in range(ROUNDS):
        rule.write_text(ORIGINAL)
        done, appended = _race(tree, rule, "append", rnd, aim.delay(rng, rnd))
        final = rule.read_text()
        err = done.stderr.decode()
        # Every appended line is there, once, at the end, in order: nothing was lost.
        assert len(appended) == 6
        tail = "".join(appended)
        assert final.endswith(tail), (rnd, final, err)
        base = final[: len(final) - len(tail)]
        if CHANGED in err:
            outcomes["refused"] += 1
            assert base == ORIGINAL, (rnd, final, err)
            assert done.returncode == 1
            assert "fixed RL104" not in err
        else:
            outcomes["fixed"] += 1
            assert "fixed RL104" in err, err
            assert base == FIXED, (rnd, final, err)
    print("appender rounds:", outcomes)
    # Both outcomes happened: the bursts did land inside the read-to-write window.
    assert outcomes["fixed"] and outcomes["refused"], outcomes


def test_fix_racing_a_replacer_never_overwrites_a_newer_version(tmp_path: Path) -> None:
    tree, rule = _tree(tmp_path)
    rng = random.Random(1919)
    aim = Aim(tree, rule)
    outcomes = {"fixed-last": 0, "refused": 0, "replaced-after": 0}
    for rnd in range(ROUNDS):
        rule.write_text(ORIGINAL)
        done, versions = _race(tree, rule, "replace", rnd, aim.delay(rng, rnd))
        final = rule.read_text()
        err = done.stderr.decode()
        last = versions[-1].strip()
        last_text = ORIGINAL + last + "\n"
        # The replacer's last version is all there: as it wrote it, or fixed by a lint
        # that read exactly that version. Never an older version, never a fix of one.
        assert final in (last_text, FIXED + last + "\n"), (rnd, final, err)
        if CHANGED in err:
            outcomes["refused"] += 1
        elif final == last_text:
            outcomes["replaced-after"] += 1  # our fix written, then replaced: no loss
        else:
            outcomes["fixed-last"] += 1
    print("replacer rounds:", outcomes)
    assert outcomes["refused"], outcomes


def test_fix_refuses_a_file_changed_after_the_lint_read(tmp_path: Path) -> None:
    """The compare-and-swap itself, without timing: the bytes differ from those linted."""
    from rulelens.lint.fixes import write_if_unchanged

    rule = tmp_path / "AGENTS.md"
    rule.write_bytes(b"old\n")
    rule.chmod(0o640)
    assert write_if_unchanged(str(rule), b"old\n", b"new text\n") is None
    assert rule.read_bytes() == b"new text\n"
    assert rule.stat().st_mode & 0o777 == 0o640
    line = write_if_unchanged(str(rule), b"old\n", b"newer\n")
    assert line == f"{rule}: {CHANGED}"
    assert rule.read_bytes() == b"new text\n"
    # Longer than what was linted (an append): also refused, nothing written.
    rule.write_bytes(b"old\nappended\n")
    assert write_if_unchanged(str(rule), b"old\n", b"x\n") == f"{rule}: {CHANGED}"
    assert rule.read_bytes() == b"old\nappended\n"


def test_fix_without_a_lease_replaces_atomically_and_still_compares(tmp_path: Path) -> None:
    """Where no lease can be had (here: the lease-break signal has a handler, as it may in
    an embedding program) the write goes through a temporary file and ``os.replace``: the
    mode is kept, no temporary file is left, and a changed file is still refused."""
    import signal

    from rulelens.lint.fixes import write_if_unchanged

    rule = tmp_path / "AGENTS.md"
    rule.write_bytes(b"old\n")
    rule.chmod(0o604)
    before = rule.stat().st_ino
    old = signal.signal(signal.SIGURG, lambda *_: None)
    try:
        assert write_if_unchanged(str(rule), b"old\n", b"new\n") is None
        assert rule.read_bytes() == b"new\n"
        assert rule.stat().st_ino != before  # replaced, not written in place
        assert rule.stat().st_mode & 0o777 == 0o604
        assert sorted(p.name for p in tmp_path.iterdir()) == ["AGENTS.md"]
        assert write_if_unchanged(str(rule), b"old\n", b"x\n") == f"{rule}: {CHANGED}"
        assert rule.read_bytes() == b"new\n"
    finally:
        signal.signal(signal.SIGURG, old)


def test_fix_refuses_a_file_another_program_keeps_open(tmp_path: Path) -> None:
    """A program holding the file open (``tail -f``, a logger) might write to it at any
    time: nothing is written, and the line says why."""
    from rulelens.lint.fixes import write_if_unchanged

    rule = tmp_path / "AGENTS.md"
    rule.write_bytes(b"old\n")
    holder = subprocess.Popen(["sh", "-c", 'exec 3>>"$0"; echo open; read -r _', str(rule)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        line = write_if_unchanged(str(rule), b"old\n", b"new\n")
        assert line == f"{rule}: open in another program — nothing written; re-run"
        assert rule.read_bytes() == b"old\n"
    finally:
        holder.communicate("\n", timeout=TIMEOUT_S)
    assert write_if_unchanged(str(rule), b"old\n", b"new\n") is None  # closed: written
    assert rule.read_bytes() == b"new\n"


@pytest.mark.parametrize("lease", [True, False], ids=["in-place", "replace"])
def test_fix_through_a_symlink_keeps_the_link(tmp_path: Path, lease: bool) -> None:
    """``CLAUDE.md -> AGENTS.md``: the target gets the new text, the link stays a link."""
    import signal

    from rulelens.lint.fixes import write_if_unchanged

    target = tmp_path / "AGENTS.md"
    target.write_bytes(b"old\n")
    link = tmp_path / "CLAUDE.md"
    link.symlink_to("AGENTS.md")
    old = signal.getsignal(signal.SIGURG)
    if not lease:
        signal.signal(signal.SIGURG, lambda *_: None)
    try:
        assert write_if_unchanged(str(link), b"old\n", b"new\n") is None
    finally:
        signal.signal(signal.SIGURG, old)
    assert link.is_symlink() and target.read_bytes() == b"new\n"
