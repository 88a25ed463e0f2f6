"""The language-server shell (issue 21 item 4): handlers are module-level functions with a
one-line docstring each, registered from one table; settings and custom request params are
typed frozen values structured once (cattrs); a setting of the wrong type is one warning
line, over the real server, and the rest of the settings still apply."""

from __future__ import annotations

import dataclasses
import inspect
import pathlib

import pytest
from lsprotocol import types

from rulelens.lsp import protocol, server
from rulelens.lsp.settings import (
    AgentsForFileParams,
    AgentsParams,
    ChainParams,
    LintSettings,
    Settings,
    params_as,
    settings_from,
)

from .conftest import hover, make_demo, open_doc, request, start_client, stop_client


def test_every_handler_is_module_level_with_a_one_line_docstring() -> None:
    handlers = [h for _m, _o, h, _t in server.FEATURES] + [h for _c, h, _t in server.COMMANDS]
    assert len(handlers) >= 19
    for h in handlers:
        fn = inspect.unwrap(h)
        assert fn.__qualname__ == fn.__name__, f"{fn.__qualname__} is nested"
        assert getattr(server, fn.__name__) is h
        doc = inspect.getdoc(fn) or ""
        assert doc and "\n" not in doc, f"{fn.__name__}: {doc!r}"


def test_the_table_registers_every_custom_request() -> None:
    made = server.create_server()
    features = set(made.protocol.fm.features)
    assert set(protocol.CUSTOM_REQUESTS) <= features
    assert set(protocol.COMMANDS) <= set(made.protocol.fm.commands)


def test_settings_are_structured_once_into_typed_frozen_values() -> None:
    got = settings_from({"rulelens": {
        "agent": "grok@1.0.6", "agentCwd": "/w/src", "agents": ["claude", " codex "],
        "hoverFormat": "list", "lint": {"disable": ["RL208"]}, "trusted": False,
        "memory": {"embedder": "none"}, "somethingNew": 1}})
    assert got == Settings(agent="grok@1.0.6", agent_cwd="/w/src", agents=("claude", "codex"),
                           hover_format="list", lint=LintSettings(("RL208",)), trusted=False,
                           memory={"embedder": "none"})
    assert settings_from({"agents": "all"}).agents == "all"
    assert settings_from(None) == Settings() == settings_from({"rulelens": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.agent = "x"  # type: ignore[misc]


def test_a_value_of_the_wrong_type_is_one_line_and_the_rest_applies() -> None:
    got = settings_from({"agents": 5, "hoverFormat": "fancy", "agent": "grok",
                         "lint": {"disable": "RL208"}})
    assert got.agent == "grok" and got.agents is None and got.hover_format == "markdown"
    assert got.lint.disable == ()
    assert got.problems == (
        'rulelens.agents: expected a list of agent ids or "all"; ignored',
        'rulelens.hoverFormat: expected "markdown" or "list"; ignored',
        'rulelens.lint: expected {"disable": [check ids]}; ignored')


def test_request_params_are_typed_the_same_way() -> None:
    assert params_as(ChainParams, {"uri": "file:///a", "agent": "codex"}) == ChainParams(
        "file:///a", "codex")
    assert params_as(AgentsForFileParams, {"uri": "u", "agents": ["claude"]}).agents == (
        "claude",)
    assert params_as(AgentsParams, {"workspaceUri": "file:///w"}).workspace_uri == "file:///w"
    assert params_as(AgentsParams, None) == AgentsParams()


async def test_a_bad_setting_is_one_warning_over_the_real_server(tmp_path: pathlib.Path) -> None:
    demo = make_demo(tmp_path)
    c = await start_client(demo.env, [demo.repo], "neovim",
                           options={"agents": 5, "hoverFormat": "list"})
    try:
        uri = demo.uri("src/app/handlers/orders.py")
        open_doc(c, uri, language="python")
        # initialized sent the warning before any later answer on the same stream.
        await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
        warnings = [m.message for m in c.messages if "rulelens.agents" in m.message]
        assert warnings == ['RuleLens: rulelens.agents: expected a list of agent ids or "all";'
                            " ignored"]
        # The rest applied: the hover reads as a list (hoverFormat "list").
        found = await hover(c, uri)
        assert found is not None and isinstance(found.contents, types.MarkupContent)
        assert "|---|" not in found.contents.value and "- file · " in found.contents.value
    finally:
        await stop_client(c)
