"""`frecall ingest` (conversation turns) and `frecall ingest-edges` (pre-extracted facts)."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing

from frecall.commands.common import tenant_deployment
from schemas.events import TurnEvent
from schemas.results import IngestReport
from workers.errors import ConfigError
from workers.inputs import EdgeInput, read_jsonl


def cmd_ingest(args: argparse.Namespace) -> int:
    _exists(args)
    with closing(tenant_deployment(args, extractor=args.extractor)) as deployment:
        report = deployment.ingest_turns(read_jsonl(args.file, TurnEvent), str(args.file))
    return _report(report, "edges", f"{report.turns} turns to fr.turns")


def cmd_ingest_edges(args: argparse.Namespace) -> int:
    _exists(args)
    with closing(tenant_deployment(args)) as deployment:
        report = deployment.ingest_edges(read_jsonl(args.file, EdgeInput), str(args.file))
    return _report(report, "facts", f"{report.accepted} facts to fr.edges")


def _exists(args: argparse.Namespace) -> None:
    if not args.file.is_file():
        raise ConfigError(f"{args.file}: no such file")


def _report(report: IngestReport, applied: str, produced: str) -> int:
    """One line on stderr; exit status 1 when any item was rejected or failed.

    `applied`: what the accepted items are; `produced`: what was sent, when queued.
    """
    if report.queued:
        print(f"produced {produced}, rejected {report.rejected}", file=sys.stderr)
        return 0 if report.ok else 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(report.transitions.items()))
    turns = f"{report.turns} turns → " if report.turns else ""
    print(
        f"{turns}ingested {report.accepted} {applied}, rejected {report.rejected}, "
        f"failed {report.failed}" + (f" ({summary})" if summary else ""),
        file=sys.stderr,
    )
    return 0 if report.ok else 1
