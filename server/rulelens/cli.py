"""SHELL: the ``rulelens`` command line. Each subcommand parses, calls the core, prints.

Output of ``chain --json`` and ``render`` is a contract the editor clients and CI rely
on (see ``docs/cli.md``). Errors print one line to stderr and exit non-zero; no traceback
reaches the user for bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from rulelens import __version__
from rulelens.agents.profiles import DEFAULT_AGENT, AgentProfile, UnknownAgent, grok_profile
from rulelens.agents.profiles import profile as agent_profile
from rulelens.agents.safeio import printable
from rulelens.agents.trust import Override
from rulelens.present import byte_size, display_path, json_text
from rulelens.rules import AgentEnvironment, Chain, ConfigError, Resolver
from rulelens.rules.model import RuleFile
from rulelens.rules.render import empty_reason, render, render_iter


class UsageError(Exception):
    """A bad argument or environment: printed as one line, exit status 2."""


def chain_for_path(path: str, env: AgentEnvironment | None = None, agent: str | None = None,
                   trust: Override = "auto") -> Chain:
    """PATH is a file or directory; the working directory is PATH or its parent."""
    absolute = checked_path(path)
    cwd = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    return resolver_for(agent, trust, env).resolve(cwd)


def chosen_profile(agent: str | None) -> AgentProfile:
    """The Grok profile ``--agent`` names (``grok`` = the newest), or a ``UsageError``."""
    try:
        return grok_profile(agent)
    except UnknownAgent as exc:
        raise UsageError(str(exc)) from None


def resolver_for(agent: str | None, trust: Override = "auto",
                 env: AgentEnvironment | None = None) -> Resolver:
    return Resolver(env or AgentEnvironment.from_env(), chosen_profile(agent), trust)


def checked_path(path: str) -> str:
    """``path`` made absolute, or a ``UsageError`` saying why it cannot be used."""
    try:
        os.lstat(path)
        return os.path.abspath(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    except ValueError:
        raise UsageError(f"{path!r}: not a valid path") from None


def format_chain(chain: Chain, note: str | None = None) -> str:
    """The human table: load order, then every file that does not load and why.

    The role column shows the file's source, so a ``configured`` file says so; with folder
    trust withholding files, one line names the state and the command that changes it.
    """
    base = chain.git_root or chain.cwd
    root = chain.git_root or "(none: not in a git repository)"
    out = [f"cwd:      {printable(chain.cwd)}", f"git root: {printable(root)}"]
    if chain.trust is not None:
        out.append(f"trust:    {trust_line(chain)}")
    if note:
        out.append(f"note:     {note}")
    out.append("")
    if chain.files:
        rows = [("#", "role", "kind", "path", "size", "~tokens")]
        for f in chain.files:
            rows.append((str(f.precedence), f.source, f.kind, display_path(f.path, base),
                         byte_size(f.bytes), str(f.tokens)))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for i, row in enumerate(rows):
            out.append("  ".join(c.rjust(widths[j]) if j in (0, 4, 5) else c.ljust(widths[j])
                                 for j, c in enumerate(row)).rstrip())
            if i == 0:
                out.append("  ".join("-" * w for w in widths))
        out.append(f"{len(chain.files)} file(s) load, {byte_size(chain.total_bytes)},"
                   f" ~{chain.total_tokens} tokens; loaded first to last, the last wins on"
                   " conflicts.")
    else:
        out.append("No instruction files load here.")
    if chain.skipped:
        out += ["", f"Not loaded ({len(chain.skipped)}):"]
        for s in chain.skipped:
            out.append(f"  {display_path(s.path, base)}  [{s.reason}]")
            out.append(f"      {s.detail}")
    return "\n".join(out) + "\n"


def trust_line(chain: Chain) -> str:
    """One line: the trust state and, when files are withheld, how many and why."""
    trust = chain.trust
    if trust is None:
        return ""
    if not trust.withholds:
        return f"{trust.state} ({trust.reason})"
    n = len(chain.withheld)
    return (f"{trust.state}: {n} project file(s) withheld until the folder is trusted;"
            f" {trust.reason}")


def _multi_agent(args: argparse.Namespace) -> bool:
    """``--agent`` other than a Grok profile, several agents, or ``--cwd``: the per-file
    views of ``rulelens.multichain``."""
    agent = getattr(args, "agent", None) or ""
    return bool(getattr(args, "cwd", None)) or ("," in agent) or agent == "all" or (
        bool(agent) and agent.split("@", 1)[0] != DEFAULT_AGENT)


def _grok_resolve(args: argparse.Namespace | None = None) -> Callable[[str], Chain]:
    """The Grok resolver for ``--agent grok[@version]`` (the per-file views use it too)."""
    agent = getattr(args, "agent", None) or ""
    grok = agent if agent.split("@", 1)[0] == DEFAULT_AGENT else None
    return resolver_for(grok, getattr(args, "trust", "auto")).resolve


def _cmd_multi(args: argparse.Namespace, render_text: bool) -> int:
    from rulelens import multichain

    checked_path(args.path)
    if args.cwd is not None and not os.path.isdir(checked_path(args.cwd)):
        raise UsageError(f"{args.cwd}: not a directory")
    try:
        if not render_text:
            sys.stdout.write(multichain.cmd_chain(args.path, args.cwd, args.agent, args.json,
                                                  args.why, os.environ, _grok_resolve(args)))
            return 0
        text, message = multichain.cmd_render(args.path, args.cwd, args.agent, os.environ,
                                              _grok_resolve(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if text is None:
        print(f"rulelens: {message}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()
    return 0


def _cmd_chain(args: argparse.Namespace) -> int:
    if _multi_agent(args):
        return _cmd_multi(args, render_text=False)
    chosen = chosen_profile(args.agent)
    chain = chain_for_path(args.path, agent=chosen.id, trust=args.trust)
    if args.json:
        sys.stdout.write(json_text(chain.to_json()))
    else:
        sys.stdout.write(format_chain(chain))
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    if _multi_agent(args):
        return _cmd_multi(args, render_text=True)
    chosen = chosen_profile(args.agent)
    frame = args.frame or chosen.renders
    if frame not in chosen.renderers:
        raise UsageError(f"{chosen.id} has no `{frame}` frame (it has:"
                         f" {', '.join(chosen.renderers)})")
    chain = chain_for_path(args.path, agent=chosen.id, trust=args.trust)
    if not chain.files:
        print(f"rulelens: nothing to render: {empty_reason(chain, chosen)}", file=sys.stderr)
        return 0
    if all(f.held for f in chain.files):
        text = render_rules_for(chain, chosen) if frame == "rules" else render(chain.files)
        pieces: Iterable[str] = (text,)
    elif frame == "rules":
        big = next(f.path for f in chain.files if not f.held)
        raise UsageError(f"{printable(big)}: too large to hold for the `rules` frame; the"
                         " system-reminder frame streams it")
    else:
        pieces = render_iter(chain.files, _unheld_text)
    sys.stdout.flush()
    try:
        for piece in pieces:  # paths are U+FFFD-lossy already
            sys.stdout.buffer.write(piece.encode("utf-8", "backslashreplace"))
    except (OSError, ValueError) as exc:  # a streamed file changed or vanished meanwhile
        raise UsageError(f"render stopped: {exc}") from None
    sys.stdout.buffer.flush()
    return 0


def _unheld_text(f: RuleFile) -> Iterator[str]:
    """A file too large to hold, streamed as the agent injects it."""
    from rulelens.rules.large import injected_chunks

    return injected_chunks(f.path, f.kind == "rule")


def _register_rules(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("chain", help="show which instruction files load for PATH, and which don't")
    p.add_argument("path", nargs="?", default=".", help="file or directory (default: .)")
    p.add_argument("--json", action="store_true", help="print the chain as one JSON object")
    _agent_options(p)
    _trust_option(p)
    p.add_argument("--why", action="store_true",
                   help="with several agents: the reason under every cell of the table")
    p.set_defaults(func=_cmd_chain)
    p = sub.add_parser("render", help="print exactly the text the agent injects for PATH")
    p.add_argument("path", nargs="?", default=".", help="file or directory (default: .)")
    _agent_options(p)
    _trust_option(p)
    p.add_argument("--frame", choices=("system-reminder", "rules"), default=None,
                   help="system-reminder (default: the block injected at session start) or"
                   " rules (the <rules> block of Plan and custom templates, Grok >= 1.0.45)")
    p.set_defaults(func=_cmd_render)
    p = sub.add_parser("inspect", help="what `grok inspect` says about rules for PATH")
    p.add_argument("path", nargs="?", default=".", help="file or directory (default: .)")
    p.add_argument("--json", action="store_true", help="the same camelCase fields as"
                   " `grok inspect --json`")
    p.add_argument("--agent", default=None, metavar="ID", help="a Grok profile (default: grok,"
                   " the newest)")
    _trust_option(p)
    p.set_defaults(func=_cmd_inspect)
    p = sub.add_parser("agents", help="list the agent profiles and where their facts come from")
    p.add_argument("--json", action="store_true", help="one JSON list")
    p.set_defaults(func=_cmd_agents)


def _trust_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trust", choices=("auto", "trusted", "untrusted"), default="auto",
                   help="folder trust for a what-if view (default auto: read"
                   " $GROK_HOME/trusted_folders.toml as Grok does)")


def render_rules_for(chain: Chain, chosen: AgentProfile) -> str:
    """The ``<rules>`` frame for ``chain`` with this environment's homes."""
    from rulelens.rules.render import render_rules

    env = AgentEnvironment.from_env()
    vendor_homes = [os.path.join(env.home, h.path) for h in chosen.home_roots
                    if h.base == "home" and h.path]
    return render_rules(chain.files, env.grok_home, vendor_homes, [inspect_root(chain)])


def inspect_root(chain: Chain) -> str:
    """``grok inspect``'s workspace root: the raw git workdir (no ``$HOME`` guard), else cwd."""
    from rulelens.agents.fs import discover_git_root

    return discover_git_root(chain.cwd) or chain.cwd


def _cmd_inspect(args: argparse.Namespace) -> int:
    from rulelens.rules.inspect import format_inspect, inspect_json

    chosen = chosen_profile(args.agent)
    env = AgentEnvironment.from_env()
    chain = chain_for_path(args.path, env, chosen.id, args.trust)
    if args.json:
        sys.stdout.write(json_text(inspect_json(chain, env, chosen)))
    else:
        sys.stdout.write(format_inspect(chain, env, chosen))
        if not chain.files:  # stdout stays `grok inspect`'s text; the reason goes to stderr
            print(f"rulelens: {empty_reason(chain, chosen)}", file=sys.stderr)
    return 0


def _cmd_agents(args: argparse.Namespace) -> int:
    from rulelens.agents.profiles import PROFILES

    default = agent_profile(DEFAULT_AGENT).id
    rows = [{"id": p.id, "title": p.title, "default": p.id == default,
             "renderers": list(p.renderers), "evidence": p.evidence,
             "evidence_source": p.source,
             "sources": [{"note": s.note, "upstream": s.upstream} for s in p.sources]}
            for p in PROFILES]
    seen = _seen_in_sessions(rows, PROFILES)
    if args.json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return 0
    out: list[str] = []
    for row in rows:
        mark = f"  (default: `{DEFAULT_AGENT}`)" if row["default"] else ""
        out.append(f"{row['id']}  {row['title']}{mark}")
        out.append(f"    evidence: {row['evidence']} ({row['evidence_source']})")
        for src in row["sources"]:  # type: ignore[attr-defined]
            out.append(f"    {src['note']}: {src['upstream']}")
        out.append(f"    sessions on this machine: {seen[str(row['id'])]}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _seen_in_sessions(rows: list[dict[str, object]], profiles: Sequence[AgentProfile]
                      ) -> dict[str, str]:
    """Add ``newest_seen`` (the newest agent version this machine's sessions record, or
    None) and ``newer_than_modelled`` to each row; return the sentence per profile id."""
    from rulelens.sessions import NOTHING_RECORDED, reader
    from rulelens.sessions.verify import drift, seen_versions

    families = sorted({p.agent for p in profiles if reader(p.agent) is not None})
    seen = seen_versions(os.environ, families)
    words: dict[str, str] = {}
    for row, p in zip(rows, profiles, strict=True):
        newest = seen.get(p.agent)
        newer = drift(p.id, newest, p.display) if newest else None
        row["newest_seen"] = newest or None
        row["newer_than_modelled"] = bool(newer and newer.startswith("Drift"))
        if reader(p.agent) is None:
            words[p.id] = ("not readable (" + NOTHING_RECORDED.get(
                p.agent, "format not researched").split(" (")[0] + ")")
        elif newest is None:
            words[p.id] = "no session found"
        elif not newest:
            words[p.id] = f"found; {p.display}'s sessions do not record its version"
        else:
            words[p.id] = f"newest {p.display} {newest}" + (
                " — newer than this profile models" if row["newer_than_modelled"] else "")
    return words


def _agent_options(p: argparse.ArgumentParser) -> None:
    from rulelens.agents.registry import choices

    p.add_argument("--agent", default=None, metavar="ID",
                   help=f"{choices()} (default: {DEFAULT_AGENT});"
                   " for chain also a comma list or `all` (side by side)")
    p.add_argument("--cwd", default=None, metavar="DIR",
                   help="where the agent session starts (default: PATH's directory)")


def _cmd_verify(args: argparse.Namespace) -> int:
    from rulelens.sessions import verify  # session readers load only for `verify`

    if not args.agent:
        from rulelens.agents.registry import choices

        raise UsageError(f"verify needs --agent ID ({choices()})")
    from rulelens.multichain import parse_agents

    try:
        agents = parse_agents(args.agent)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if len(agents) != 1:
        raise UsageError("verify takes one agent, not a list or `all`")
    path = checked_path(args.path) if args.path else None
    if args.cwd is not None:
        cwd = checked_path(args.cwd)
    elif path is not None:
        cwd = path if os.path.isdir(path) else os.path.dirname(path)
    else:
        cwd = os.path.abspath(".")
    if not os.path.isdir(cwd):
        raise UsageError(f"{args.cwd}: not a directory")
    try:
        result = verify.verify(agents[0], cwd, path or cwd, os.environ, _grok_resolve(args),
                               args.session)
    except ValueError as exc:  # SessionNotFound, an unknown agent
        raise UsageError(str(exc)) from None
    if args.json:
        sys.stdout.write(json_text(result))
    else:
        sys.stdout.write(verify.format_text(result))
    return verify.exit_code(result)


def _register_verify(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("verify", help="compare the agent's last session in DIR with what"
                       " RuleLens predicts it loads")
    p.add_argument("path", nargs="?", default=None, help="file or directory (default: DIR)")
    p.add_argument("--agent", default=None, metavar="ID",
                   help="grok, claude, codex, gemini (cursor, copilot, boost: unknown)")
    p.add_argument("--cwd", default=None, metavar="DIR",
                   help="where the session started (default: PATH's directory, else .)")
    p.add_argument("--session", default="latest", metavar="latest|ID|FILE",
                   help="the newest session recorded in DIR (default), a session id, or a"
                   " session file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _trust_option(p)
    p.set_defaults(func=_cmd_verify)


def _cmd_serve(args: argparse.Namespace) -> int:
    from rulelens.startup import serve  # pygls loads only for `serve`

    return serve()


def _register_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the language server over stdio")
    p.add_argument("--stdio", action="store_true", help="use stdio (the default and only mode)")
    p.set_defaults(func=_cmd_serve)


def _register_memory(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from rulelens.memory.cli import register

    register(sub)


def _register_lint(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from rulelens.lint.cli import register

    register(sub)


#: Each entry adds its subcommands to the parser; later issues append here.
REGISTRARS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _register_rules,
    _register_serve,
    _register_memory,
    _register_lint,
    _register_verify,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulelens",
        description="Which agent instruction files govern a file, are they healthy, and what"
        " the agent remembers.",
    )
    parser.add_argument("--version", action="version", version=f"rulelens {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in REGISTRARS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # A file name or argument that is not UTF-8 must not end a command in a traceback:
    # whatever a view missed is written as a backslash escape.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except (UsageError, ConfigError) as exc:
        print(f"rulelens: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
