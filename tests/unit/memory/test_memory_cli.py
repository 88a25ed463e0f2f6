"""``rulelens memory …`` end to end on the demo workspace (real git repo, real files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rulelens.memory.settings import ConfigError, load_settings, with_client_settings

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    dest = str(tmp_path_factory.mktemp("demo"))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo", "build.py"),
                          dest], check=True, capture_output=True, text=True).stdout
    info = dict(line.split("=", 1) for line in out.split())
    info["cache"] = os.path.join(dest, "cache")
    return info


def rulelens(demo: dict[str, str], *args: str, code: int = 0) -> str:
    env = {**os.environ, "HOME": demo["home"], "GROK_HOME": demo["grok_home"],
           "RULELENS_CACHE_DIR": demo["cache"]}
    proc = subprocess.run([sys.executable, "-m", "rulelens", *args], cwd=demo["repo"], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == code, proc.stderr
    return proc.stdout


def test_search_json_shape_and_demo_hit(demo: dict[str, str]) -> None:
    data = json.loads(rulelens(demo, "memory", "search", "stripe webhook retries", "--json"))
    assert set(data) >= {"query", "keywords", "mode", "results"}
    assert data["keywords"] == ["stripe", "webhook", "retries"] and data["mode"] == "fts"
    first = data["results"][0]
    assert set(first) == {"path", "start_line", "end_line", "snippet", "score", "raw_score",
                          "source", "staleness", "agent_returns", "injected_first_turn"}
    assert first["path"].endswith("demo-shop-5a7bd946/MEMORY.md")
    assert (first["start_line"], first["end_line"]) == (5, 11)  # "## Payments", 1-based
    assert first["source"] == "workspace" and first["agent_returns"] is True
    assert "## Payments" in first["snippet"]


def test_agent_format_is_the_tool_text(demo: dict[str, str]) -> None:
    text = rulelens(demo, "memory", "search", "stripe webhook retries", "--agent-format")
    assert text.startswith("Found 1 memory result(s):\n\n### Result 1 (score: 1.00, source:"
                           " workspace)\n**File:** ")
    assert "/demo-shop-5a7bd946/MEMORY.md (lines 4-11)\n```\n[Context: # Project Memory" in text
    none = rulelens(demo, "memory", "search", "kubernetes helm chart", "--agent-format")
    assert none == "No memory results found for query."


def test_all_marks_editor_only_results(demo: dict[str, str]) -> None:
    data = json.loads(rulelens(demo, "memory", "search", "stripe webhook", "--all", "--json"))
    flags = [r["agent_returns"] for r in data["results"]]
    assert flags[0] is True and False in flags
    assert flags == sorted(flags, reverse=True)
    table = rulelens(demo, "memory", "search", "stripe webhook", "--all")
    assert "editor only" in table and "agent returns" in table


def test_min_score_and_max_results(demo: dict[str, str]) -> None:
    data = json.loads(rulelens(demo, "memory", "search", "stripe webhook", "--min-score", "0",
                               "--max-results", "2", "--json"))
    assert len(data["results"]) == 2


def test_status_json(demo: dict[str, str]) -> None:
    data = json.loads(rulelens(demo, "memory", "status", "--json"))
    assert data["workspace_name"] == "demo-shop-5a7bd946"
    assert data["identity"] == "acme/demo-shop"
    assert data["global_dir"] == os.path.join(demo["grok_home"], "memory")
    assert data["workspace_dir"].endswith("/demo-shop-5a7bd946")
    assert isinstance(data["ephemeral"], bool)
    assert data["dream"]["min_sessions"] == 5 and data["dream"]["would_run"] is False
    text = rulelens(demo, "memory", "status")
    assert "dream (consolidation) gates" in text and "demo-shop-5a7bd946" in text


def test_index_and_chunks(demo: dict[str, str]) -> None:
    out = rulelens(demo, "memory", "index", "--json")
    assert json.loads(out)["files"] == 5
    path = os.path.join(demo["grok_home"], "memory", "demo-shop-5a7bd946", "MEMORY.md")
    chunks = json.loads(rulelens(demo, "memory", "chunks", path, "--json"))
    assert [(c["start_line"], c["end_line"]) for c in chunks][:2] == [(0, 4), (4, 11)]
    assert all(set(c) == {"start_line", "end_line", "text", "hash"} for c in chunks)
    whole = json.loads(rulelens(demo, "memory", "chunks", path, "--max-chars", "100000",
                                "--json"))
    with open(path, encoding="utf-8") as fh:
        assert whole == [{"start_line": 0, "end_line": 41, "text": fh.read(),
                          "hash": whole[0]["hash"]}]


def test_bad_input_is_one_line_errors(demo: dict[str, str], tmp_path: object) -> None:
    bad = os.path.join(str(tmp_path), "latin1.md")
    with open(bad, "wb") as fh:
        fh.write(b"caf\xe9")
    env_err = subprocess.run([sys.executable, "-m", "rulelens", "memory", "chunks", bad],
                             capture_output=True, text=True)
    assert env_err.returncode == 2 and "not UTF-8" in env_err.stderr
    assert "Traceback" not in env_err.stderr
    rulelens(demo, "memory", "search", "x", "--workspace", "/no/such/dir", code=2)


def test_settings_from_config(tmp_path: object) -> None:
    home = str(tmp_path)
    with open(os.path.join(home, "config.toml"), "w") as fh:
        fh.write("[memory]\nenabled = true\n[memory.search]\nmax_results = 3\nmin_score = 0.5\n"
                 "[memory.search.mmr]\nlambda = 3.0\n[memory.search.source_weights]\n"
                 "session = 0.5\n[memory.embedding]\nmodel = \"text-embedding-3-small\"\n"
                 "dimensions = 256\n")
    s = load_settings(home, {})
    assert (s.enabled, s.search.max_results, s.search.min_score) == (True, 3, 0.5)
    assert s.search.mmr_lambda == 1.0  # clamped
    assert s.search.source_weight("session") == 0.5 and s.search.source_weight("global") == 1.0
    assert (s.embedding.kind, s.embedding.model, s.embedding.dimensions) == (
        "api", "text-embedding-3-small", 256)
    assert load_settings(home, {"GROK_MEMORY": "0"}).enabled is False
    client = with_client_settings(s, {"embedder": "local", "maxResults": 10})
    assert (client.embedding.kind, client.search.max_results) == ("local", 10)
    with open(os.path.join(home, "config.toml"), "w") as fh:
        fh.write("[memory.search]\nmax_results = \"six\"\n")
    with pytest.raises(ConfigError, match="max_results"):
        load_settings(home, {})
    empty = os.path.join(home, "none")
    os.makedirs(empty)
    d = load_settings(empty, {})
    assert (d.search.max_results, d.search.min_score, d.embedding.kind) == (6, 0.7, "none")
