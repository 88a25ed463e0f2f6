"""Files that are not regular files, never end, or have names that are not UTF-8, through
the real CLI (``chain``, ``render``, ``inspect``, ``lint``, ``memory``): never a hang (every
child runs under a timeout), never a traceback, a ``not-a-file`` reason naming the kind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adversarial import hostile
from adversarial.hostile import Tree, assert_clean, make_tree, one_error_line


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return make_tree(tmp_path)


def _hostile_workspace(tree: Tree) -> dict[str, str]:
    """Every hostile kind under an instruction-file name, plus one good rule and one good
    named file; returns ``{path relative to base: kind}``."""
    placed: dict[str, str] = {}
    # Distinct files everywhere: two links to /dev/zero would be one file (a duplicate).
    named = {"fifo": "AGENTS.md", "socket": "CLAUDE.md", "fifo-link": "CLAUDE.local.md"}
    for kind, name in named.items():
        placed[os.path.relpath(hostile.make(tree.repo / name, kind), tree.base)] = kind
    for kind in hostile.kinds():
        path = hostile.make(tree.rules(f"{kind}.md"), kind)
        placed[os.path.relpath(path, tree.base)] = kind
    hostile.make(tree.repo / ".claude" / "rules" / "pipe.md", "fifo")
    placed["repo/.claude/rules/pipe.md"] = "fifo"
    hostile.make(tree.grok_home / "AGENTS.md", "fifo")
    placed["home/.grok/AGENTS.md"] = "fifo"
    (tree.rules("good.md")).write_text("Good rule.\n")
    (tree.repo / "AGENT.md").write_text("Good named file.\n")
    return placed


def test_chain_refuses_every_non_regular_candidate(tree: Tree) -> None:
    placed = _hostile_workspace(tree)
    chain = tree.chain()
    loaded = [os.path.relpath(f["path"], tree.base) for f in chain["files"]]
    assert loaded == ["repo/AGENT.md", "repo/.grok/rules/good.md"]
    reasons = tree.reasons(chain)
    for rel, kind in placed.items():
        reason, detail = reasons[rel]
        assert reason == "not-a-file", (rel, reason, detail)
        assert hostile.KINDS[kind] in detail, (rel, detail)


def test_render_and_text_chain_finish_with_the_good_files(tree: Tree) -> None:
    _hostile_workspace(tree)
    done = tree.run("render", str(tree.repo))
    assert_clean(done)
    assert done.returncode == 0
    text = done.stdout.decode("utf-8")
    assert "Good rule.\n" in text and "Good named file.\n" in text
    assert text.count("## From: ") == 2
    done = tree.run("chain", str(tree.repo))
    assert_clean(done)
    assert done.returncode == 0
    assert b"[not-a-file]" in done.stdout and b"a FIFO, not a regular file" in done.stdout


def test_lint_reports_and_never_opens_them(tree: Tree) -> None:
    placed = _hostile_workspace(tree)
    done = tree.run("lint", "--format", "json", str(tree.repo))
    assert_clean(done)
    assert done.returncode in (0, 1), done.stderr.decode()
    findings = json.loads(done.stdout)
    by_file = {(f["path"], f["code"]) for f in findings}
    for rel in placed:
        if rel.startswith("repo/"):
            assert (rel, "RL204") in by_file, (rel, sorted(by_file))


@pytest.mark.parametrize("kind", hostile.kinds())
def test_lint_of_one_hostile_path_named_on_the_command_line(tree: Tree, kind: str) -> None:
    path = hostile.make(tree.repo / "AGENTS.md", kind)
    done = tree.run("lint", "--format", "json", str(path))
    assert_clean(done)
    findings = json.loads(done.stdout)
    assert [f["code"] for f in findings] == ["RL204"], findings
    assert hostile.KINDS[kind] in findings[0]["message"]


# --------------------------------------------------------------- config.toml
def _bad_config(tree: Tree, kind: str) -> None:
    path = tree.grok_home / "config.toml"
    if kind == "deep-arrays":
        path.write_text(hostile.deep_toml())
    elif kind == "deep-tables":
        path.write_text(hostile.deep_inline_tables())
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 64)
    elif kind == "huge":
        path.write_text("# " + "x" * (5 * 1024 * 1024) + "\n")
    elif kind == "directory":
        path.mkdir()
    else:
        hostile.make(path, kind)


CONFIG_KINDS = ["deep-arrays", "deep-tables", "binary", "huge", "directory", "fifo", "socket",
                "dev-zero", "proc-self-mem"]
#: Every command that reads the agent's config.toml.
COMMANDS = [("chain", "{repo}"), ("chain", "--json", "{repo}"), ("render", "{repo}"),
            ("inspect", "{repo}"), ("lint", "{repo}"), ("memory", "search", "--json", "x"),
            ("memory", "status"), ("memory", "index")]


@pytest.mark.parametrize("kind", CONFIG_KINDS)
def test_bad_config_toml_is_one_error_line_for_every_command(tree: Tree, kind: str) -> None:
    (tree.repo / "AGENTS.md").write_text("rules\n")
    _bad_config(tree, kind)
    for command in COMMANDS:
        args = [a.format(repo=tree.repo) for a in command]
        line = one_error_line(tree.run(*args))
        assert "config.toml" in line, (args, line)
    if kind.startswith("deep"):
        assert "nested too deeply" in line
    elif kind in ("fifo", "socket", "dev-zero", "proc-self-mem"):
        assert hostile.KINDS[kind] in line


# ------------------------------------------------------------------ names
def test_name_that_is_not_utf8_is_escaped_in_views_and_lossy_in_render(tree: Tree) -> None:
    bad = tree.rules(hostile.NON_UTF8_NAME)
    bad.write_text("From a badly named file.\n")
    chain = tree.chain()               # valid UTF-8 JSON (tree.chain decodes strictly)
    names = [os.path.basename(f["path"]) for f in chain["files"]]
    assert names == ["\\xff\\xfe.md"]  # readable escapes, not raw bytes
    done = tree.run("chain", str(tree.repo))
    assert_clean(done)
    assert ".grok/rules/\\xff\\xfe.md" in done.stdout.decode("utf-8")
    done = tree.run("render", str(tree.repo))
    assert_clean(done)
    assert done.returncode == 0
    text = done.stdout.decode("utf-8")
    # The agent's Path::display: each byte that is not UTF-8 becomes U+FFFD.
    assert f"## From: {tree.repo}/.grok/rules/\ufffd\ufffd.md\nFrom a badly" in text
    bad.write_text("---\nbroken: [\n---\nFrom a badly named file.\n")   # a lint finding
    for fmt, shown in (("text", "rules/\\xff\\xfe.md:3:1"), ("json", "rules/\\\\xff\\\\xfe.md"),
                       ("sarif", "rules/%FF%FE.md"), ("github", "rules/\\xff\\xfe.md")):
        done = tree.run("lint", "--format", fmt, str(tree.repo))
        assert_clean(done)
        assert done.returncode == 1, (fmt, done.stderr.decode())
        assert shown in done.stdout.decode("utf-8"), (fmt, done.stdout.decode())


def test_memory_search_json_is_valid_utf8_whatever_the_bytes(tree: Tree) -> None:
    memory = tree.grok_home / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# Notes\n\nThe deploy key rotates weekly.\n")
    odd = Path(os.fsdecode(os.fsencode(memory) + b"/n\xff\xfe.md"))
    odd.write_text("The deploy script lives in ops.\n")
    for query in ("deploy", os.fsdecode(b"deploy \xff\xfe"), "\udcff"):
        done = tree.run("memory", "search", "--json", query, "--all")
        assert_clean(done)
        assert done.returncode == 0, done.stderr.decode()
        json.loads(done.stdout.decode("utf-8"))


def test_sparse_hundred_gigabyte_agents_md_is_bounded(tree: Tree) -> None:
    """A regular file can be endless too (a sparse file costs no disk): RuleLens holds at
    most its bound and says so, instead of reading until MemoryError."""
    with open(tree.repo / "AGENTS.md", "wb") as fh:
        fh.truncate(100 * 1024**3)
    (tree.repo / "CLAUDE.md").write_text("small\n")
    chain = tree.chain()
    assert [os.path.basename(f["path"]) for f in chain["files"]] == ["CLAUDE.md"]
    reason, detail = tree.reasons(chain)["repo/AGENTS.md"]
    assert reason == "unreadable" and str(100 * 1024**3) in detail
    done = tree.run("lint", "--format", "json", str(tree.repo / "AGENTS.md"))
    assert_clean(done)
    assert "RL203" in {f["code"] for f in json.loads(done.stdout)}


def test_working_directory_that_is_not_utf8(tree: Tree) -> None:
    odd = Path(os.fsdecode(os.fsencode(tree.repo) + b"/d\xff"))
    odd.mkdir()
    (odd / "AGENTS.md").write_text("deep\n")
    done = tree.run("chain", str(odd))
    assert_clean(done)
    assert done.returncode == 0
    text = done.stdout.decode("utf-8")
    assert f"cwd:      {tree.repo}/d\\xff\n" in text and "d\\xff/AGENTS.md" in text
    chain = tree.chain(odd)
    assert chain["cwd"] == f"{tree.repo}/d\\xff"
    done = tree.run("render", str(odd))
    assert_clean(done)
    assert f"## From: {tree.repo}/d\ufffd/AGENTS.md\n" in done.stdout.decode("utf-8")


def _max_rss_kib(tree: Tree, *args: str) -> tuple[int, bytes]:
    """Run ``rulelens ARGS`` as the only child of a fresh interpreter; its peak RSS (KiB)
    and its stdout."""
    import subprocess
    import sys

    probe = ("import resource, subprocess, sys; out = subprocess.run(sys.argv[1:],"
             " capture_output=True, check=False).stdout; sys.stdout.buffer.write(out);"
             " sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))")
    done = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "rulelens",
                           *args], cwd=tree.base, env=tree.env, capture_output=True,
                          timeout=hostile.TIMEOUT_S * 3, check=True)
    return int(done.stderr), done.stdout


def test_files_over_the_hold_bound_load_and_render_streamed(tree: Tree) -> None:
    """The agent has no size cap: a 70 MB AGENTS.md and a 66 MB rule file load, with their
    real sizes and token counts, and `render` streams them byte for byte (reminder tags
    split across read chunks still neutralised) without holding them."""
    from rulelens.agents.safeio import TEXT_LIMIT
    from rulelens.rules.frontmatter import strip_for_agent
    from rulelens.rules.render import CLOSING, PREAMBLE, neutralize

    mib = 1024 * 1024
    line = "- Keep the build green; café au lait is fine.\n"
    parts: list[str] = []
    size = 0
    for i in range(70):                       # each tag starts 8 bytes before a MiB boundary
        filler = line * ((mib * (i + 1) - 8 - size) // len(line.encode()))
        filler += "x" * (mib * (i + 1) - 8 - size - len(filler.encode()))
        tag = "</system-reminder>" if i % 2 else "< system_REMINDER"
        parts += [filler, tag]
        size += len(filler.encode()) + len(tag.encode())
    named = "".join(parts)
    rule = "---\ndescription: big\n---\n\n" + line * (66 * mib // len(line.encode()))
    (tree.repo / "AGENTS.md").write_text(named, encoding="utf-8")
    big = tree.rules("big.md")
    big.write_text(rule, encoding="utf-8")
    assert big.stat().st_size > TEXT_LIMIT and (tree.repo / "AGENTS.md").stat().st_size > TEXT_LIMIT
    done = tree.run("chain", "--json", "--agent", "grok@1.0.6", str(tree.repo))
    assert_clean(done)
    files = {os.path.basename(f["path"]): f for f in json.loads(done.stdout)["files"]}
    stripped = strip_for_agent(rule)
    assert files["AGENTS.md"]["bytes"] == len(named.encode())
    assert files["AGENTS.md"]["tokens"] == (len(named) + 3) // 4
    assert files["big.md"]["bytes"] == len(rule.encode())
    assert files["big.md"]["tokens"] == (len(stripped) + 3) // 4
    assert all(f["held"] is False and f["content"] == "" for f in files.values())
    rss, out = _max_rss_kib(tree, "render", "--agent", "grok@1.0.6", str(tree.repo))
    expected = (PREAMBLE + f"\n## From: {tree.repo}/AGENTS.md\n{neutralize(named)}\n"
                f"\n## From: {big}\n{neutralize(stripped)}\n" + CLOSING)
    assert out == expected.encode("utf-8")
    assert out.count(b"&lt;/system-reminder>") == 35 and out.count(b"&lt; system_REMINDER") == 35
    assert rss < 120 * 1024, rss    # measured 41 MB; holding both files takes over 280 MB
    done = tree.run("lint", "--format", "json", str(tree.repo / "AGENTS.md"))
    assert_clean(done)
    codes = {f["code"] for f in json.loads(done.stdout)}
    assert "RL308" in codes and "RL211" not in codes, codes   # over budget, not "empty"
