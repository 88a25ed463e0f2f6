"""What a resolver reports: a name that is not defined where the command runs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """``message`` about the word at ``at`` (``length`` characters); ``code`` RL506 for a
    script or target, RL505 for a path handed to a command, RL507 for a name left unchecked
    because of a construct RuleLens does not evaluate."""

    message: str
    at: int
    length: int
    code: str = "RL506"
