"""Moved to :mod:`rulelens.agents.fs`; kept as a re-export while importers move."""

from rulelens.agents.fs import canonical, discover_git_root, exists, is_dir, is_within

__all__ = ["canonical", "discover_git_root", "exists", "is_dir", "is_within"]
