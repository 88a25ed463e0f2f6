"""The files an agent's last session was seen loading, as ``observed`` evidence marks.

A ``rulelens verify`` object lists what the session injected (``observed``); each of those
files that the agent's view lists as loaded is then graded ``observed`` (the line's
``evidence``), with the session as its ``evidence_source``, in ``chain --json`` and
``rulelens/agentsForFile`` per-agent views and in the hover table (``ᵒ``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The grade a line gets when the agent's last session shows it loaded.
OBSERVED = "observed"


def observed_files(result: Mapping[str, Any] | None) -> dict[str, str]:
    """``{path: source}`` for every file the verdict's session shows injected (empty without
    a session); the source names the session, its start and its file."""
    session = result.get("session") if result else None
    if not isinstance(session, Mapping) or result is None:
        return {}
    started = session.get("started") or "an unknown time"
    source = (f"your {result.get('agent')} session {session.get('id')} of {started}"
              f" ({session.get('path')})")
    out: dict[str, str] = {}
    for o in result.get("observed", []):
        path = o.get("path") if isinstance(o, Mapping) else None
        if isinstance(path, str):
            out[path] = source + ("" if o.get("matches_disk", True) else "; edited since")
    return out


def mark_view_json(entry: dict[str, Any], files: Mapping[str, str]) -> int:
    """Grade ``observed`` each loaded file of one ``chain --json`` view that ``files`` lists
    (``evidence_source``: the session); how many were marked."""
    n = 0
    for f in entry.get("files", []):
        source = files.get(str(f.get("path"))) if isinstance(f, dict) else None
        if source is not None:
            f["evidence"] = OBSERVED
            f["evidence_source"] = source
            n += 1
    return n
