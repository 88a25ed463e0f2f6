"""Memory settings: the agent's ``[memory.*]`` config with the agent's defaults.

Defaults equal Grok Build's (spec §7.1) so that, with no configuration, RuleLens ranks
memory exactly as the agent would. The embedder settings are RuleLens' own: the agent
only has an ``api`` provider and runs FTS-only when no model is configured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EmbedderKind = Literal["none", "local", "api"]


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
