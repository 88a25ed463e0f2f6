"""Configuration: files, precedence, disabling, severities, thresholds, inline directives."""

from __future__ import annotations

from lintrepo import Repo, codes

from rulelens.lint.config import DEFAULT, load_config

LONG = "".join(f"line {i}\n" for i in range(230))


def test_defaults_without_files(repo: Repo) -> None:
    cfg = load_config(repo.root)
    assert cfg == DEFAULT and cfg.thresholds.codex_max_bytes == 32768
    assert cfg.thresholds.claude_max_lines == 200


def test_pyproject_table(repo: Repo) -> None:
    repo.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.rulelens]\n'
               'disable = ["RL404"]\n[tool.rulelens.severity]\nRL301 = "info"\n'
               '[tool.rulelens.thresholds]\nclaude_max_lines = 100\n')
    cfg = load_config(repo.root)
    assert cfg.problems == ()
    assert not cfg.enabled("RL404") and cfg.severity_of("RL301") == "info"
    repo.write("CLAUDE.md", "".join(f"l{i}\n" for i in range(150)) + "```\nunclosed\n")
    found = repo.lint("CLAUDE.md", config=cfg)
    assert "RL404" not in codes(found)
    (f,) = [f for f in found if f.code == "RL301"]
    assert f.severity == "info"


def test_dot_rulelens_wins_over_pyproject(repo: Repo) -> None:
    repo.write("pyproject.toml", '[tool.rulelens]\ndisable = ["RL301"]\n')
    repo.write(".rulelens.toml", '[thresholds]\nclaude_max_lines = 250\n')
    cfg = load_config(repo.root)
    assert cfg.enabled("RL301") and cfg.thresholds.claude_max_lines == 250
    repo.write("CLAUDE.md", LONG)
    assert "RL301" not in codes(repo.lint("CLAUDE.md", config=cfg))
    assert "RL301" in codes(repo.lint("CLAUDE.md"))


def test_bad_config_is_reported_and_defaults_stay(repo: Repo) -> None:
    repo.write(".rulelens.toml", 'disable = ["RL999", "RL301"]\n[severity]\nRL101 = "fatal"\n'
               '[thresholds]\nnope = 1\ncodex_max_bytes = -5\n')
    cfg = load_config(repo.root)
    text = "\n".join(cfg.problems)
    assert "RL999" in text and "fatal" in text and "nope" in text and "codex_max_bytes" in text
    assert not cfg.enabled("RL301")
    assert cfg.severity_of("RL101") == "error" and cfg.thresholds.codex_max_bytes == 32768


def test_unparsable_toml_is_a_problem_not_a_crash(repo: Repo) -> None:
    repo.write(".rulelens.toml", "disable = [\n")
    cfg = load_config(repo.root)
    assert len(cfg.problems) == 1 and "not valid TOML" in cfg.problems[0]
    assert cfg.disabled == frozenset()


def test_inline_disable_for_one_file(repo: Repo) -> None:
    repo.write("CLAUDE.md", "<!-- rulelens-disable RL301, RL404 -->\n" + LONG + "```\n")
    repo.write("src/CLAUDE.md", LONG + "```\n")
    assert not {"RL301", "RL404"} & codes(repo.lint("CLAUDE.md"))
    assert {"RL301", "RL404"} <= codes(repo.lint("src/CLAUDE.md"))


def test_inline_disable_all(repo: Repo) -> None:
    repo.write("CLAUDE.md", "<!-- rulelens-disable -->\n" + LONG + "```\n")
    assert repo.lint("CLAUDE.md") == []
