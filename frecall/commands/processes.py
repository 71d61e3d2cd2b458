"""`frecall serve` and `frecall worker`: the long-running processes."""

from __future__ import annotations

import argparse
import sys

from frecall.settings import settings_from


def cmd_serve(args: argparse.Namespace) -> int:
    """The HTTP API until SIGINT/SIGTERM (FastAPI and uvicorn load only for this command)."""
    from frecall.api import ApiLimits
    from frecall.api.server import serve

    settings = settings_from(args)

    def ready() -> None:
        where = f"http://{args.host}:{args.port}"
        print(f"frecall: serving on {where} (docs: /docs)", file=sys.stderr, flush=True)

    limits = ApiLimits(settings.http_max_body_bytes)
    serve(settings, args.host, args.port, limits=limits, ready=ready)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    """The distributed deployment's agents until SIGINT/SIGTERM (Faust loads only here)."""
    from frecall.distributed.worker import run

    roles = {r.strip() for r in args.roles.split(",") if r.strip()}
    run(settings_from(args), roles, args.loglevel)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """The MCP server, on stdio or Streamable HTTP (the `mcp` package loads only here)."""
    from frecall.mcp.run import run

    run(settings_from(args), tenant=args.tenant, user=args.user, http=args.http, host=args.host)
    return 0
