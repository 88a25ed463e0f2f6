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
from collections.abc import Callable, Sequence

from rulelens import __version__
from rulelens.present import byte_size, display_path
from rulelens.rules import AgentEnvironment, Chain, ConfigError, Resolver, render


class UsageError(Exception):
    """A bad argument or environment: printed as one line, exit status 2."""


def chain_for_path(path: str, env: AgentEnvironment | None = None) -> Chain:
    """PATH is a file or directory; the working directory is PATH or its parent."""
    absolute = checked_path(path)
    cwd = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    return Resolver(env or AgentEnvironment.from_env()).resolve(cwd)


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


def format_chain(chain: Chain) -> str:
    """The human table: load order, then every file that does not load and why."""
    base = chain.git_root or chain.cwd
    root = chain.git_root or "(none: not in a git repository)"
    out = [f"cwd:      {chain.cwd}", f"git root: {root}", ""]
    if chain.files:
        rows = [("#", "role", "kind", "path", "size", "~tokens")]
        for f in chain.files:
            rows.append((str(f.precedence), f.role, f.kind, display_path(f.path, base),
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


def _multi_agent(args: argparse.Namespace) -> bool:
    """``--agent`` other than a Grok profile, several agents, or ``--cwd``: the per-file
    views of ``rulelens.multichain``."""
    agent = getattr(args, "agent", None) or ""
    return bool(getattr(args, "cwd", None)) or ("," in agent) or agent == "all" or (
        bool(agent) and agent.split("@", 1)[0] != "grok")


def _grok_resolve() -> Callable[[str], Chain]:
    return Resolver(AgentEnvironment.from_env()).resolve


def _cmd_multi(args: argparse.Namespace, render_text: bool) -> int:
    from rulelens import multichain

    checked_path(args.path)
    if args.cwd is not None and not os.path.isdir(checked_path(args.cwd)):
        raise UsageError(f"{args.cwd}: not a directory")
    try:
        if not render_text:
            sys.stdout.write(multichain.cmd_chain(args.path, args.cwd, args.agent, args.json,
                                                  args.why, os.environ, _grok_resolve()))
            return 0
        text, message = multichain.cmd_render(args.path, args.cwd, args.agent, os.environ,
                                              _grok_resolve())
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if text is None:
        print(f"rulelens: {message}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
    return 0


def _cmd_chain(args: argparse.Namespace) -> int:
    if _multi_agent(args):
        return _cmd_multi(args, render_text=False)
    chain = chain_for_path(args.path)
    if args.json:
        sys.stdout.write(json.dumps(chain.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(format_chain(chain))
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    if _multi_agent(args):
        return _cmd_multi(args, render_text=True)
    chain = chain_for_path(args.path)
    data = render(chain.files).encode("utf-8")
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


def _register_rules(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("chain", help="show which instruction files load for PATH, and which don't")
    p.add_argument("path", nargs="?", default=".", help="file or directory (default: .)")
    p.add_argument("--json", action="store_true", help="print the chain as one JSON object")
    _agent_options(p)
    p.add_argument("--why", action="store_true",
                   help="with several agents: the reason under every cell of the table")
    p.set_defaults(func=_cmd_chain)
    p = sub.add_parser("render", help="print exactly the text the agent injects for PATH")
    p.add_argument("path", nargs="?", default=".", help="file or directory (default: .)")
    _agent_options(p)
    p.set_defaults(func=_cmd_render)


def _agent_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default=None, metavar="ID",
                   help="grok (default), claude, codex, cursor, copilot, gemini, boost;"
                   " for chain also a comma list or `all` (side by side)")
    p.add_argument("--cwd", default=None, metavar="DIR",
                   help="where the agent session starts (default: PATH's directory)")


def _cmd_serve(args: argparse.Namespace) -> int:
    from rulelens.lsp.server import serve_stdio  # pygls loads only for `serve`

    return serve_stdio()


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
