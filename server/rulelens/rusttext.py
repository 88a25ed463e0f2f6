"""Moved to :mod:`rulelens.agents.rusttext` (the ground floor); kept as a re-export."""

from rulelens.agents.rusttext import WHITE_SPACE, byte_len, lines, trim, trim_end, trim_start

__all__ = ["WHITE_SPACE", "byte_len", "lines", "trim", "trim_end", "trim_start"]
