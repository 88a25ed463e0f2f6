"""Memory settings: the agent's ``[memory.*]`` config with the agent's defaults.

Defaults equal Grok Build's (spec §7.1) so that, with no configuration, RuleLens ranks
memory exactly as the agent would. A wrongly typed value makes the agent's config loading
fail, so it is a :class:`~rulelens.rules.ConfigError` here too; unknown keys are ignored.
The embedder settings are RuleLens' own: the agent only has an ``api`` provider and runs
FTS-only when no model is configured, which is ``kind='none'`` here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from rulelens.agents.compat import ConfigError, read_config

EmbedderKind = Literal["none", "local", "api"]
EMBEDDER_KINDS: tuple[EmbedderKind, ...] = ("none", "local", "api")


@dataclass(frozen=True)
class EmbeddingSettings:
    """Which embedder to use. ``kind='none'`` is the agent's default: FTS only."""

    kind: EmbedderKind = "none"
    base_url: str | None = None
    model: str | None = None
    dimensions: int = 1024
    api_key_env: str = "OPENAI_API_KEY"
    batch_size: int = 32
    timeout_s: float = 30.0


@dataclass(frozen=True)
class SearchSettings:
    """``[memory.search]``; ``max_results``/``min_score`` are replaced by a caller's values."""

    max_results: int = 6
    min_score: float = 0.7
    vector_weight: float = 0.7
    text_weight: float = 0.3
    recency_decay: float = 0.95
    temporal_decay_enabled: bool = True
    half_life_days: float = 30.0
    mmr_enabled: bool = True
    mmr_lambda: float = 0.7
    #: A TOML table replaces the whole map; a missing key weighs 1.0.
    source_weights: tuple[tuple[str, float], ...] = (
        ("workspace", 1.0), ("session", 1.0), ("global", 1.0))

    def source_weight(self, source: str) -> float:
        return dict(self.source_weights).get(source, 1.0)

    def effective_half_life_days(self) -> float | None:
        """``temporal_decay`` wins; the deprecated ``recency_decay`` only when it was changed."""
        if self.temporal_decay_enabled:
            return self.half_life_days if self.half_life_days > 0 else None
        r = self.recency_decay
        if r != 0.95 and 0 < r < 1:
            return -1.0 / math.log2(r)
        return None


@dataclass(frozen=True)
class IndexSettings:
    """``[memory.index]``: the chunker limits (bytes, characters)."""

    max_chunk_chars: int = 1600
    chunk_overlap_chars: int = 320


@dataclass(frozen=True)
class InjectionSettings:
    """``[memory.initial_injection]``: first-turn injection threshold (None means 0.0)."""

    enabled: bool = True
    min_score: float | None = 0.9

    @property
    def threshold(self) -> float:
        return 0.0 if self.min_score is None else self.min_score


@dataclass(frozen=True)
class DreamSettings:
    enabled: bool = True
    min_hours: int = 24
    min_sessions: int = 5
    stale_lock_secs: int = 3600


@dataclass(frozen=True)
class MemorySettings:
    enabled: bool = False
    search: SearchSettings = field(default_factory=SearchSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    initial_injection: InjectionSettings = field(default_factory=InjectionSettings)
    dream: DreamSettings = field(default_factory=DreamSettings)
    config_path: str | None = None


def _table(parent: Mapping[str, object], key: str, where: str) -> Mapping[str, object]:
    value = parent.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: [{key}] must be a table")
    return value


def _num(table: Mapping[str, object], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: {key} must be a number, not {value!r}")
    return float(value)


def _int(table: Mapping[str, object], key: str, default: int, where: str) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: {key} must be a non-negative integer, not {value!r}")
    return value


def _bool(table: Mapping[str, object], key: str, default: bool, where: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")
    return value


def _opt_str(table: Mapping[str, object], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key} must be a string, not {value!r}")
    return value or None  # "" forces unset, like the agent's model key


def _env_bool(value: str | None) -> bool | None:
    if value is None:
        return None
    v = value.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    return None


def settings_from_config(config: Mapping[str, object], where: str = "config.toml",
                         env: Mapping[str, str] | None = None) -> MemorySettings:
    """Build settings from a parsed ``config.toml`` (and ``GROK_MEMORY`` for ``enabled``)."""
    memory = _table(config, "memory", where)
    s = _table(memory, "search", where + " [memory]")
    sw = f"{where} [memory.search]"
    decay = _table(s, "temporal_decay", sw)
    mmr = _table(s, "mmr", sw)
    weights_table = s.get("source_weights")
    weights = SearchSettings().source_weights
    if weights_table is not None:
        if not isinstance(weights_table, dict):
            raise ConfigError(f"{sw}: source_weights must be a table")
        weights = tuple((str(k), _num(weights_table, k, 1.0, sw)) for k in weights_table)
    search = SearchSettings(
        max_results=_int(s, "max_results", 6, sw),
        min_score=_num(s, "min_score", 0.7, sw),
        vector_weight=_num(s, "vector_weight", 0.7, sw),
        text_weight=_num(s, "text_weight", 0.3, sw),
        recency_decay=_num(s, "recency_decay", 0.95, sw),
        temporal_decay_enabled=_bool(decay, "enabled", True, sw + ".temporal_decay"),
        half_life_days=_num(decay, "half_life_days", 30.0, sw + ".temporal_decay"),
        mmr_enabled=_bool(mmr, "enabled", True, sw + ".mmr"),
        mmr_lambda=min(1.0, max(0.0, _num(mmr, "lambda", 0.7, sw + ".mmr"))),
        source_weights=weights,
    )
    i = _table(memory, "index", where + " [memory]")
    iw = f"{where} [memory.index]"
    index = IndexSettings(_int(i, "max_chunk_chars", 1600, iw),
                          _int(i, "chunk_overlap_chars", 320, iw))
    e = _table(memory, "embedding", where + " [memory]")
    ew = f"{where} [memory.embedding]"
    model = _opt_str(e, "model", ew)
    embedding = EmbeddingSettings(
        kind="api" if model else "none",
        base_url=_opt_str(e, "base_url", ew),
        model=model,
        dimensions=_int(e, "dimensions", 1024, ew),
        api_key_env=_opt_str(e, "api_key_env", ew) or "OPENAI_API_KEY",
    )
    inj = _table(memory, "initial_injection", where + " [memory]")
    injw = f"{where} [memory.initial_injection]"
    injection = InjectionSettings(_bool(inj, "enabled", True, injw),
                                  _num(inj, "min_score", 0.9, injw))
    d = _table(memory, "dream", where + " [memory]")
    dw = f"{where} [memory.dream]"
    dream = DreamSettings(_bool(d, "enabled", True, dw), _int(d, "min_hours", 24, dw),
                          _int(d, "min_sessions", 5, dw), _int(d, "stale_lock_secs", 3600, dw))
    enabled = _bool(memory, "enabled", False, where + " [memory]")
    from_env = _env_bool((env or {}).get("GROK_MEMORY"))
    if from_env is not None:
        enabled = from_env
    return MemorySettings(enabled, search, index, embedding, injection, dream, where)


def load_settings(grok_home: str, env: Mapping[str, str] | None = None) -> MemorySettings:
    """Read ``$GROK_HOME/config.toml``; a missing file gives the agent's defaults."""
    config, path = read_config(grok_home)
    return settings_from_config(config, path, env)


def with_client_settings(settings: MemorySettings, client: Mapping[str, object]) -> MemorySettings:
    """Apply editor settings (section ``rulelens.memory``; see docs/protocol.md) on top.

    Keys: ``embedder`` (none|local|api), ``api.baseUrl``, ``api.model``,
    ``api.dimensions``, ``api.keyEnv`` (nested or dotted), ``maxResults``, ``minScore``.
    """
    def get(key: str) -> object:
        if key in client:
            return client[key]
        head, _, tail = key.partition(".")
        nested = client.get(head)
        return nested.get(tail) if tail and isinstance(nested, dict) else None

    emb = settings.embedding
    kind = get("embedder")
    if kind is not None:
        if kind not in EMBEDDER_KINDS:
            raise ConfigError(f"memory.embedder must be one of none, local, api; not {kind!r}")
        emb = replace(emb, kind=kind)
    base_url, model, key_env = get("api.baseUrl"), get("api.model"), get("api.keyEnv")
    if isinstance(base_url, str) and base_url:
        emb = replace(emb, base_url=base_url)
    if isinstance(model, str) and model:
        emb = replace(emb, model=model)
    if isinstance(key_env, str) and key_env:
        emb = replace(emb, api_key_env=key_env)
    dims = get("api.dimensions")
    if isinstance(dims, int) and not isinstance(dims, bool) and dims > 0:
        emb = replace(emb, dimensions=dims)
    search = settings.search
    max_results = get("maxResults")
    if isinstance(max_results, int) and not isinstance(max_results, bool) and max_results > 0:
        search = replace(search, max_results=max_results)
    min_score = get("minScore")
    if isinstance(min_score, int | float) and not isinstance(min_score, bool):
        search = replace(search, min_score=float(min_score))
    return replace(settings, embedding=emb, search=search)


def with_embedder_kind(settings: MemorySettings, kind: EmbedderKind | None) -> MemorySettings:
    """``--embedder`` on the command line: override the configured kind for one run."""
    if kind is None:
        return settings
    return replace(settings, embedding=replace(settings.embedding, kind=kind))
