"""Property: no text, in any format's location, makes the engine raise."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rulelens.lint import lint_document
from rulelens.lint.config import DEFAULT

PATHS = ["/w/AGENTS.md", "/w/.claude/rules/a.md", "/w/.cursor/rules/a.mdc", "/w/.ai/rules/a.md",
         "/w/.github/instructions/a.instructions.md", "/w/.windsurf/rules/a.md",
         "/w/.grok/rules/sub/a.md", "/w/agents.md", "/w/README.md"]
PIECES = st.sampled_from([
    "---", "---\n", "\n", "\r\n", "\ufeff", "\t", "paths:", " - ", "- **/*.ts", '"src/**"',
    "globs: ", "applyTo: ", "alwaysApply: ", "true", "[", "]", "{", "}", "&a ", "*a", ": ",
    "```", "~~~", "# Heading", "<system-reminder>", "</system_reminder>", "\udcff", "\x00",
    "<!-- rulelens-disable RL101 -->", "excludeAgent: x", "...", "a" * 50, "\\", "'", "|",
])


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(PATHS), parts=st.lists(PIECES | st.text(max_size=20), max_size=40))
def test_engine_never_raises(path: str, parts: list[str]) -> None:
    text = "".join(parts)
    for f in lint_document(path, text, None, DEFAULT):
        assert f.range.start <= f.range.end
        assert f.range.start.line >= 0 and f.range.start.character >= 0
