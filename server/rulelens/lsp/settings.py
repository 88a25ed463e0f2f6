"""The client's settings and custom request params as typed frozen values, structured once.

The ``rulelens`` section arrives as JSON (``initializationOptions``,
``workspace/didChangeConfiguration``); :func:`settings_from` turns it into one
:class:`Settings` with cattrs (pygls ships it), instead of ``Mapping[str, Any]`` lookups
scattered over the handlers. A value of the wrong type is dropped with one line in
:attr:`Settings.problems` (the field keeps its default); unknown keys are ignored. The
custom requests' params (already checked against ``protocol.REQUEST_PARAMS``, which
answers ``InvalidParams`` before a handler runs) are structured the same way by
:func:`params`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeVar

import cattrs
from cattrs.gen import make_dict_structure_fn, override

#: ``rulelens.agents``: a list of agent ids, or ``"all"``; ``None``: the default (every
#: agent whose files exist in the workspace folder).
AgentsSetting = tuple[str, ...] | Literal["all"] | None
HoverFormat = Literal["markdown", "list"]

P = TypeVar("P")


@dataclass(frozen=True)
class LintSettings:
    """``rulelens.lint``: check ids switched off in the editor."""

    disable: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    """The ``rulelens`` settings section, typed."""

    #: The Grok profile the chain views show (``grok``, ``grok@1.0.6``).
    agent: str | None = None
    #: Where agent sessions start (``agentCwd``); ``None``: the workspace folder.
    agent_cwd: str | None = None
    agents: AgentsSetting = None
    #: ``list``: hover tables as list items (Neovim sends it).
    hover_format: HoverFormat = "markdown"
    lint: LintSettings = field(default_factory=LintSettings)
    #: The workspace is trusted by the editor (``False``: no ``api`` embedder).
    trusted: bool | None = None
    #: The ``memory`` section, read by the memory feature under its own schema.
    memory: Mapping[str, Any] = field(default_factory=dict)
    #: One line per value that was dropped for its type.
    problems: tuple[str, ...] = ()


#: What each setting must be, for the one line a wrong value gets.
EXPECTED = {"agent": "an agent id (a string)", "agentCwd": "a path (a string)",
            "agents": 'a list of agent ids or "all"', "hoverFormat": '"markdown" or "list"',
            "lint": '{"disable": [check ids]}', "trusted": "true or false",
            "memory": "an object"}
#: JSON names that differ from the field names.
_RENAMES = {"agent_cwd": "agentCwd", "hover_format": "hoverFormat"}

converter = cattrs.Converter(forbid_extra_keys=False)


def _agents(value: object, _type: object) -> AgentsSetting:
    if value is None or value == "all":
        return None if value is None else "all"
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise ValueError('expected a list of agent ids or "all"')


def _text(value: object, _type: object) -> str:
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value


def _strings(value: object, _type: object) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError("expected a list of strings")
    return tuple(value)


def _flag(value: object, _type: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


def _mapping(value: object, _type: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError("expected an object")
    return dict(value)


converter.register_structure_hook_func(lambda t: t == AgentsSetting, _agents)
converter.register_structure_hook(str, _text)
converter.register_structure_hook(bool, _flag)
converter.register_structure_hook_func(lambda t: t == tuple[str, ...], _strings)
converter.register_structure_hook_func(lambda t: t == Mapping[str, Any], _mapping)
converter.register_structure_hook(
    Settings, make_dict_structure_fn(
        Settings, converter, agent_cwd=override(rename="agentCwd"),
        hover_format=override(rename="hoverFormat")))


def settings_from(raw: object) -> Settings:
    """``{"rulelens": {...}}`` or the section itself, as :class:`Settings`; each value of the
    wrong type is left out (its default kept) with one line saying so."""
    section = raw.get("rulelens", raw) if isinstance(raw, Mapping) else None
    if not isinstance(section, Mapping):
        return Settings()
    data = {k: v for k, v in section.items() if v is not None and k != "problems"}
    problems: list[str] = []
    json_names = {f.name: _RENAMES.get(f.name, f.name) for f in fields(Settings)}
    for json in json_names.values():  # type-check each value alone: one bad, one line
        if json not in data:
            continue
        try:
            converter.structure({json: data[json]}, Settings)
        except (cattrs.BaseValidationError, ValueError, TypeError):
            problems.append(f"rulelens.{json}: expected {EXPECTED[json]}; ignored")
            del data[json]
    found = converter.structure(data, Settings)
    return Settings(**{**{f.name: getattr(found, f.name) for f in fields(Settings)},
                       "problems": tuple(problems)})


# ------------------------------------------------------------------ request params
@dataclass(frozen=True)
class ChainParams:
    """``rulelens/chain``: one document; with ``agent`` or ``cwd``, one agent's view."""

    uri: str
    agent: str | None = None
    cwd: str | None = None


@dataclass(frozen=True)
class AgentsForFileParams:
    """``rulelens/agentsForFile``: every enabled agent's view of one document."""

    uri: str
    cwd: str | None = None
    agents: AgentsSetting = None


@dataclass(frozen=True)
class AgentsParams:
    """``rulelens/agents``: the agents the server knows, for one workspace folder."""

    workspace_uri: str | None = None


@dataclass(frozen=True)
class DocumentParams:
    """A request about one open document (``rulelens/render``)."""

    uri: str


converter.register_structure_hook(
    AgentsParams, make_dict_structure_fn(
        AgentsParams, converter, workspace_uri=override(rename="workspaceUri")))


def params_as(kind: type[P], raw: Any) -> P:
    """``raw`` (a dict, or pygls' namedtuple-like object for unknown methods) as ``kind``."""
    if raw is None:
        raw = {}
    elif not isinstance(raw, Mapping):
        raw = raw._asdict() if hasattr(raw, "_asdict") else vars(raw)
    data = {k: v for k, v in raw.items() if v is not None}
    return converter.structure(data, kind)
