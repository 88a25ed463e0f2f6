"""Moved to :mod:`rulelens.agents.environment`; kept as a re-export while importers move."""

from rulelens.agents.environment import AgentEnvironment, workspace_user_dir

__all__ = ["AgentEnvironment", "workspace_user_dir"]
