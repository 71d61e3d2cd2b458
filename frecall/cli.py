"""`frecall [--data-dir D] [-v] COMMAND …`: the command line (docs/architecture.md,
"Entry points"). Parsing and dispatch here; each command is in frecall/commands/.

The global options are accepted before the command and after it (`frecall --data-dir D
query …` and `frecall query --data-dir D …`): the subcommands' copies default to nothing,
so that a value given before the command is not overwritten by a default after it.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from frecall import plugins
from frecall.access.tenants import DEFAULT_TENANT
from frecall.commands import keys
from frecall.commands.ingest import cmd_ingest, cmd_ingest_edges
from frecall.commands.maintenance import cmd_compact, cmd_replay
from frecall.commands.memory import cmd_export, cmd_forget, cmd_inspect
from frecall.commands.processes import cmd_mcp, cmd_serve, cmd_worker
from frecall.commands.query import cmd_query
from frecall.observability.logs import configure as configure_logging
from workers.errors import FRError


def _global_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default,
        help="embedded deployment directory (env FR_DATA_DIR; default ./frecall-data)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=default, help="log at INFO level"
    )
    parser.add_argument(
        "--log-format",
        choices=["text", "json"],
        default=default,
        help="log lines on stderr as text (default) or one JSON object a line",
    )


def _tenant(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tenant",
        default=DEFAULT_TENANT,
        help="the tenant (application) whose users these are (default: default)",
    )


def _common() -> argparse.ArgumentParser:
    """The global options again, for after the command name."""
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, argparse.SUPPRESS)
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="frecall",
        description="Fortunate Recall: long-term memory that knows which facts are current.",
    )
    _global_options(parser, None)
    parser.set_defaults(verbose=False, log_format="text")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("ingest", parents=[common], help="ingest conversation turns")
    p.add_argument("file", type=Path, help="JSONL, one turn a line (see README)")
    _tenant(p)
    p.add_argument(
        "--extractor",
        choices=["auto", "rules", "llm"],
        default="auto",
        help="auto: the LLM when FR_OPENAI_BASE_URL/FR_OPENAI_API_KEY is set, else rules",
    )

    p = sub.add_parser("ingest-edges", parents=[common], help="ingest pre-extracted facts")
    p.add_argument("file", type=Path, help="JSONL, one fact a line (see README)")
    _tenant(p)

    p = sub.add_parser("query", parents=[common], help="ask the memory of a user")
    p.add_argument("text", nargs="?", help="the query")
    p.add_argument("--user", help="user id (single query)")
    p.add_argument("--as-of", help="ISO 8601 time: the memory as it was then")
    p.add_argument("--k", type=int, default=10, help="results to return (default 10)")
    p.add_argument(
        "--intent",
        default="auto",
        choices=["auto", "current", "historical", "upcoming", "past", "cancelled"],
    )
    p.add_argument("--batch", type=Path, help="JSONL of {user_id, query, as_of?, intent?, k?}")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    _tenant(p)

    p = sub.add_parser("replay", parents=[common], help="rebuild every store from the log")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--from-kafka",
        action="store_true",
        help="distributed: rebuild Redis and the vector index from fr.edges + fr.commands",
    )

    p = sub.add_parser("compact", parents=[common], help="archive long-dead facts (sweep)")
    p.add_argument("--as-of", help="ISO 8601 time (default now)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("worker", parents=[common], help="distributed agents (Faust worker)")
    p.add_argument(
        "--roles",
        default="extraction,lifecycle",
        help="comma-separated: extraction, lifecycle (default both)",
    )
    p.add_argument("--loglevel", default="warning", help="Faust log level (default warning)")

    p = sub.add_parser("export", parents=[common], help="every fact of a user, stable order")
    p.add_argument("--user", required=True)
    p.add_argument("--json", action="store_true", help="JSON (the only format; accepted)")
    _tenant(p)

    p = sub.add_parser("forget", parents=[common], help="erase a fact or a user everywhere")
    p.add_argument("--user", required=True)
    p.add_argument("--edge", help="one fact's edge id (default: the whole user)")
    p.add_argument("--json", action="store_true")
    _tenant(p)

    p = sub.add_parser("inspect", parents=[common], help="a user's memory by category/state")
    p.add_argument("--user", required=True)
    p.add_argument("--as-of", help="ISO 8601 time (default now)")
    p.add_argument("--json", action="store_true")
    _tenant(p)

    p = sub.add_parser("serve", parents=[common], help="the HTTP API (OpenAPI at /docs)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port to bind (default 8080)")

    keys.add_parser(sub, common)

    p = sub.add_parser("mcp", parents=[common], help="an MCP server: remember, recall, forget")
    p.add_argument(
        "--http", type=int, metavar="PORT", help="Streamable HTTP on PORT (default: stdio)"
    )
    p.add_argument("--host", default="127.0.0.1", help="with --http: address (default 127.0.0.1)")
    p.add_argument(
        "--user",
        help="the user whose memory the tools use (stdio: required; HTTP: the default when a "
        "session sends no X-User-Id header)",
    )
    _tenant(p)

    p = sub.add_parser("demo", parents=[common], help="a sample story, lifecycle vs similarity")
    p.add_argument("--keep", action="store_true", help="keep the demo data dir")

    plugins.register_all(sub, common)  # `bench` and any other installed plugin
    return parser


def _demo(args: argparse.Namespace) -> int:
    from frecall import demo

    return demo.run(args)


def _handlers() -> dict[str, Callable[[argparse.Namespace], int]]:
    return {
        "ingest": cmd_ingest,
        "ingest-edges": cmd_ingest_edges,
        "query": cmd_query,
        "replay": cmd_replay,
        "export": cmd_export,
        "forget": cmd_forget,
        "inspect": cmd_inspect,
        "serve": cmd_serve,
        "demo": _demo,
        "compact": cmd_compact,
        "worker": cmd_worker,
        "keys": keys.cmd_keys,
        "mcp": cmd_mcp,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(logging.INFO if args.verbose else logging.WARNING, args.log_format)
    try:
        handler: plugins.Handler | None = getattr(args, "handler", None)
        return handler(args) if handler is not None else _handlers()[args.command](args)
    except FRError as exc:
        print(f"frecall: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("frecall: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`frecall inspect … | head`): not an error worth a trace.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
