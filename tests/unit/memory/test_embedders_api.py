"""ApiEmbedder against a real HTTP server on loopback (no mock objects).

The server speaks the OpenAI ``/v1/embeddings`` shape and answers with deterministic
feature-hashed vectors, so the tests can check that each text gets its own vector back in
input order. A per-test script of canned answers (429, 500, 401, slow, ...) is consumed one
request at a time; when it is empty the server answers normally.
"""

from __future__ import annotations

import base64
import math
import struct
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from helpers.embeddings_api import Answer, closed_port, fake_vec, loopback_server
from rulelens.memory.embedders import (
    ApiEmbedder,
    EmbedderError,
    LocalEmbedder,
    make_embedder,
)
from rulelens.memory.settings import EmbeddingSettings


@dataclass
class Call:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float


class FakeApi:
    """State shared with the handler: the script, the calls seen, the answer format."""

    def __init__(self) -> None:
        self.script: deque[Answer] = deque()
        self.calls: list[Call] = []
        self.base64 = False
        self.reverse = False  # answer data items in reverse order (clients must sort by index)
        self.dims_override: int | None = None
        self.url = ""

    def embeddings(self, req: dict[str, Any]) -> Answer:
        inputs = req.get("input")
        inputs = [inputs] if isinstance(inputs, str) else inputs
        if not inputs or any(not isinstance(s, str) or not s for s in inputs):
            return Answer(400, {"error": {"message": "input must be non-empty strings"}})
        dim = self.dims_override or int(req.get("dimensions") or 64)
        data = []
        for i, text in enumerate(inputs):
            vec: Any = [x * 3.0 for x in fake_vec(text, dim)]  # not unit: client normalises
            if self.base64:
                vec = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode()
            data.append({"object": "embedding", "index": i, "embedding": vec})
        if self.reverse:
            data.reverse()
        return Answer(200, {"object": "list", "data": data, "model": req.get("model")})

    def respond(self, path: str, headers: dict[str, str], req: Any) -> Answer:
        """Record the call; the next scripted answer, else a normal one."""
        self.calls.append(Call(path, headers, req, time.monotonic()))
        return self.script.popleft() if self.script else self.embeddings(req)


@pytest.fixture
def api() -> Iterator[FakeApi]:
    state = FakeApi()
    with loopback_server(state.respond) as url:
        state.url = url
        yield state


def embedder(api: FakeApi, **kw: Any) -> ApiEmbedder:
    kw.setdefault("backoff_s", 0.01)
    return ApiEmbedder(api.url, kw.pop("model", "test-embed"), kw.pop("dimensions", 16), **kw)


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


TEXTS = [
    "deploy with make release",
    "the database is postgres 16",
    "tests run with pytest -q",
    "prefer tabs over spaces",
    "café owner said bonjour",
    "never push to main",
    "   ",
]


def test_batches_and_returns_each_text_its_own_unit_vector(api: FakeApi) -> None:
    api.reverse = True
    seen: list[tuple[int, int]] = []
    emb = ApiEmbedder(
        api.url,
        "test-embed",
        16,
        "sk-test",
        batch_size=3,
        progress=lambda d, t: seen.append((d, t)),
    )
    vectors = emb.embed(TEXTS)

    assert [len(c.body["input"]) for c in api.calls] == [3, 3, 1]
    assert [c.path for c in api.calls] == ["/v1/embeddings"] * 3
    first = api.calls[0]
    assert first.body["model"] == "test-embed"
    assert first.body["dimensions"] == 16
    assert first.body["encoding_format"] == "float"
    assert first.headers["Authorization"] == "Bearer sk-test"
    assert api.calls[2].body["input"] == [" "]  # a blank text is sent as one space, not ""
    assert seen == [(3, 7), (6, 7), (7, 7)]
    assert len(vectors) == len(TEXTS)
    for text, vector in zip(TEXTS, vectors, strict=True):
        assert len(vector) == 16
        if not text.strip():  # the fake server has no features for " ": a zero vector
            assert vector == [0.0] * 16
            continue
        assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-9)
        assert cos(vector, fake_vec(text, 16)) == pytest.approx(1.0, abs=1e-9)
    assert emb.name == "api:test-embed"
    assert emb.dimensions == 16


def test_base64_answers_are_decoded(api: FakeApi) -> None:
    api.base64 = True
    vectors = embedder(api).embed(["alpha beta", "gamma"])
    assert cos(vectors[0], fake_vec("alpha beta", 16)) == pytest.approx(1.0, abs=1e-6)
    assert cos(vectors[1], fake_vec("gamma", 16)) == pytest.approx(1.0, abs=1e-6)


def test_empty_input_makes_no_request(api: FakeApi) -> None:
    assert embedder(api).embed([]) == []
    assert api.calls == []


def test_429_is_retried_after_the_servers_retry_after(api: FakeApi) -> None:
    api.script.append(Answer(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}))
    vectors = embedder(api, backoff_s=0.0).embed(["one", "two"])
    assert len(api.calls) == 2
    assert api.calls[1].at - api.calls[0].at >= 0.9  # waited what Retry-After asked, not 0
    assert cos(vectors[1], fake_vec("two", 16)) == pytest.approx(1.0, abs=1e-9)


def test_5xx_is_retried_with_backoff_then_succeeds(api: FakeApi) -> None:
    api.script.extend([Answer(503, {"error": {"message": "overloaded"}}), Answer(502, "bad")])
    vectors = embedder(api, backoff_s=0.05).embed(["one"])
    assert len(api.calls) == 3
    gaps = [b.at - a.at for a, b in zip(api.calls, api.calls[1:], strict=False)]
    assert gaps[0] >= 0.03 and gaps[1] >= 0.07  # exponential: ~0.05 then ~0.1 (±20 %)
    assert len(vectors) == 1


def test_500_exhausting_the_retries_is_a_clear_error(api: FakeApi) -> None:
    api.script.extend(Answer(500, {"error": {"message": "boom"}}) for _ in range(10))
    with pytest.raises(EmbedderError) as err:
        embedder(api, max_retries=2).embed(["one"])
    assert len(api.calls) == 3
    message = str(err.value)
    assert "HTTP 500" in message and "3 attempts" in message and "boom" in message


def test_401_names_the_key_variable_and_never_the_key(api: FakeApi) -> None:
    api.script.append(
        Answer(401, {"error": {"message": "Incorrect API key provided: sk-secret-123"}})
    )
    with pytest.raises(EmbedderError) as err:
        embedder(api, api_key="sk-secret-123", api_key_env="MY_EMBED_KEY").embed(["one"])
    message = str(err.value)
    assert len(api.calls) == 1  # not retried
    assert "HTTP 401" in message and "MY_EMBED_KEY" in message
    assert "Incorrect API key provided" in message
    assert "sk-secret-123" not in message  # redacted even where the server echoes it
    with pytest.raises(EmbedderError, match="control characters"):
        embedder(api, api_key="sk-1\r\nX-Evil: 1")


def test_400_shows_the_servers_reason_and_the_model(api: FakeApi) -> None:
    api.script.append(Answer(400, {"error": {"message": "This model does not support dimensions"}}))
    with pytest.raises(EmbedderError) as err:
        embedder(api, model="text-embedding-ada-002").embed(["one"])
    message = str(err.value)
    assert len(api.calls) == 1
    assert "HTTP 400" in message
    assert "does not support dimensions" in message and "text-embedding-ada-002" in message


def test_timeout_is_reported_within_the_configured_time(api: FakeApi) -> None:
    api.script.append(Answer(200, {"data": []}, delay_s=3.0))
    start = time.monotonic()
    with pytest.raises(EmbedderError) as err:
        embedder(api, timeout_s=0.3).embed(["one"])
    assert time.monotonic() - start < 2.0
    assert "did not answer within 0.3 s" in str(err.value)


def test_wrong_dimensions_say_what_to_configure(api: FakeApi) -> None:
    api.dims_override = 8
    with pytest.raises(EmbedderError) as err:
        embedder(api, dimensions=16).embed(["one"])
    message = str(err.value)
    assert "8-dimensional" in message and "16" in message and "dimensions = 8" in message


def test_missing_or_extra_items_are_refused(api: FakeApi) -> None:
    one = {"object": "embedding", "index": 0, "embedding": [1.0] * 16}
    api.script.append(Answer(200, {"data": [one]}))
    with pytest.raises(EmbedderError, match="1 embeddings for 2 texts"):
        embedder(api).embed(["one", "two"])
    api.script.append(Answer(200, {"data": [one, one]}))
    with pytest.raises(EmbedderError, match="repeated index"):
        embedder(api).embed(["one", "two"])
    api.script.append(Answer(200, {"data": [{"index": 0, "embedding": [math.nan] * 16}]}))
    with pytest.raises(EmbedderError, match="NaN"):  # json.loads accepts NaN; we must not
        embedder(api).embed(["one"])


def test_redirects_are_not_followed(api: FakeApi) -> None:
    elsewhere = FakeApi()
    with loopback_server(elsewhere.respond) as other_url:
        api.script.append(Answer(307, {}, {"Location": f"{other_url}/embeddings"}))
        with pytest.raises(EmbedderError, match="redirect"):
            embedder(api).embed(["one"])
        assert elsewhere.calls == []  # the texts never went anywhere but the configured URL


def test_unreachable_endpoint_is_a_clear_error() -> None:
    port = closed_port()  # a port that was free a moment ago and is closed now
    with pytest.raises(EmbedderError, match="cannot reach"):
        ApiEmbedder(f"http://127.0.0.1:{port}/v1", "m", 4, timeout_s=2).embed(["one"])


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/v1", "localhost:1234"])
def test_only_http_urls_are_accepted(url: str) -> None:
    with pytest.raises(EmbedderError, match="not an http"):
        ApiEmbedder(url, "m", 4)


def test_base_url_forms(api: FakeApi) -> None:
    assert ApiEmbedder("http://h:1/v1/", "m", 4).url == "http://h:1/v1/embeddings"
    assert ApiEmbedder("http://h:1/v1/embeddings", "m", 4).url == "http://h:1/v1/embeddings"
    with pytest.raises(EmbedderError, match="credentials"):
        ApiEmbedder("https://user:pw@h/v1", "m", 4)


# ---- make_embedder ------------------------------------------------------------------------


def test_none_means_fts_only() -> None:
    assert make_embedder(EmbeddingSettings()) is None
    assert make_embedder(EmbeddingSettings(kind="none", model="x")) is None


def test_api_settings_are_validated_without_network() -> None:
    with pytest.raises(EmbedderError, match="base_url"):
        make_embedder(EmbeddingSettings(kind="api", model="m"), env={})
    with pytest.raises(EmbedderError, match="model"):
        make_embedder(EmbeddingSettings(kind="api", base_url="https://api.x.ai/v1"), env={})
    remote = EmbeddingSettings(
        kind="api", base_url="https://api.x.ai/v1", model="m", api_key_env="XAI_API_KEY"
    )
    with pytest.raises(EmbedderError, match="XAI_API_KEY"):
        make_embedder(remote, env={"OPENAI_API_KEY": "not-this-one"})


def test_api_settings_read_the_key_from_the_named_variable(api: FakeApi) -> None:
    settings = EmbeddingSettings(
        kind="api", base_url=api.url, model="m", dimensions=8, api_key_env="EMB_KEY", batch_size=2
    )
    seen: list[tuple[int, int]] = []
    emb = make_embedder(
        settings, env={"EMB_KEY": "k-123"}, progress=lambda d, t: seen.append((d, t))
    )
    assert isinstance(emb, ApiEmbedder)
    assert len(emb.embed(["a", "b", "c"])) == 3
    assert api.calls[0].headers["Authorization"] == "Bearer k-123"
    assert [len(c.body["input"]) for c in api.calls] == [2, 1]
    assert seen == [(2, 3), (3, 3)]


def test_loopback_needs_no_key(api: FakeApi) -> None:
    settings = EmbeddingSettings(kind="api", base_url=api.url, model="nomic", dimensions=8)
    emb = make_embedder(settings, env={})
    assert emb is not None
    emb.embed(["a"])
    assert "Authorization" not in api.calls[0].headers


def test_local_kind_builds_the_local_embedder() -> None:
    emb = make_embedder(EmbeddingSettings(kind="local"), env={})
    assert isinstance(emb, LocalEmbedder)
    assert emb.dimensions == 384
