"""Check out the real-repository lint corpus (bench/corpus.txt) from local git mirrors.

Usage: ``python bench/corpus.py OUT_DIR [--mirror /work/.mirror] [--list bench/corpus.txt]``

Each line of the list is ``owner/name@<40-hex commit>`` (``#`` starts a comment). The
mirror of ``owner/name`` is a bare git directory at ``MIRROR/owner+name/repo`` (or a clone
with a work tree, ``MIRROR/owner+name/repo/.git``), as the session's ``fetch`` tool leaves
it. Every file of that commit is written to ``OUT_DIR/<name>`` (``owner-name`` when two
repositories share a name); blobs the mirror lacks (LFS, partial snapshots) and submodules
are skipped and counted. The tree is then ``git init``-ed, so the repository root and its
``.gitignore`` apply when ``rulelens lint`` or ``bench/lint.py --corpus OUT_DIR`` walks it.
No network: a repository whose mirror or commit is absent is reported and skipped.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def read_list(path: Path) -> list[tuple[str, str]]:
    """The ``(owner/name, commit)`` pairs of the list file, in order."""
    pairs = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        repo, _, commit = line.partition("@")
        pairs.append((repo.strip(), commit.strip()))
    return pairs


def git_dir(mirror: Path, repo: str) -> Path | None:
    """The git directory of ``repo``'s mirror, or None when there is none."""
    base = mirror / repo.replace("/", "+") / "repo"
    for candidate in (base / ".git", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _git(gdir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run one git command on ``gdir`` (no hooks, no pager) and return its stdout."""
    return subprocess.run(["git", f"--git-dir={gdir}", "-c", "core.hooksPath=/dev/null", *args],
                          input=stdin, capture_output=True, check=True).stdout


def checkout(gdir: Path, commit: str, out: Path) -> tuple[int, int]:
    """Write ``commit``'s files into ``out``; return (files written, entries skipped)."""
    listing = _git(gdir, "ls-tree", "-r", "-z", "--full-tree", commit).split(b"\0")
    entries = []
    for item in listing:
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        mode, kind, sha = meta.split()
        entries.append((mode.decode(), kind.decode(), sha.decode(), os.fsdecode(name)))
    blobs = [e for e in entries if e[1] == "blob"]
    skipped = len(entries) - len(blobs)
    written = 0
    proc = subprocess.Popen(["git", f"--git-dir={gdir}", "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for mode, _, sha, name in blobs:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] != b"blob":
                skipped += 1
                continue
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)
            target = out / name
            if ".." in Path(name).parts or name.startswith("/"):
                skipped += 1
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                if target.is_symlink() or target.exists():
                    target.unlink()
                target.symlink_to(os.fsdecode(data))
            else:
                target.write_bytes(data)
                if mode == "100755":
                    target.chmod(0o755)
            written += 1
    finally:
        proc.stdin.close()
        proc.wait()
    return written, skipped


def main(argv: list[str] | None = None) -> int:
    """Check every listed repository out into OUT_DIR; non-zero when one could not be."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="directory to create the checked-out repositories in")
    ap.add_argument("--mirror", default="/work/.mirror", help="folder of owner+name/repo mirrors")
    ap.add_argument("--list", default=str(HERE / "corpus.txt"), help="the corpus list")
    ap.add_argument("--only", action="append", default=[], help="check out only this owner/name")
    args = ap.parse_args(argv)
    pairs = read_list(Path(args.list))
    if args.only:
        pairs = [p for p in pairs if p[0] in args.only]
    names = [repo.split("/", 1)[1] for repo, _ in pairs]
    out_root = Path(args.out)
    out_root.mkdir(parents=True, exist_ok=True)
    failed = 0
    for repo, commit in pairs:
        name = repo.split("/", 1)[1]
        if names.count(name) > 1:
            name = repo.replace("/", "-")
        gdir = git_dir(Path(args.mirror), repo)
        if gdir is None:
            print(f"{repo}: no mirror under {args.mirror}", file=sys.stderr)
            failed += 1
            continue
        out = out_root / name
        if out.exists():
            print(f"{repo}: {out} exists, left as it is", file=sys.stderr)
            continue
        try:
            written, skipped = checkout(gdir, commit or "HEAD", out)
        except subprocess.CalledProcessError as exc:
            print(f"{repo}: git failed: {exc.stderr.decode(errors='replace').strip()}",
                  file=sys.stderr)
            failed += 1
            continue
        subprocess.run(["git", "init", "-q", str(out)], check=True)
        print(f"{repo}@{commit[:12]}: {written} files, {skipped} skipped -> {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
