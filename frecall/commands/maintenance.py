"""`frecall replay` and `frecall compact`: rebuild from the log, archive long-dead facts."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
from datetime import UTC, datetime

from frecall.commands.common import deployment_of, emit, parse_time


def cmd_replay(args: argparse.Namespace) -> int:
    with closing(deployment_of(args)) as deployment:
        report = deployment.replay("kafka" if args.from_kafka else "log")
    if args.json:
        emit(report.summary())
    else:
        print(report.describe())
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    """`frecall compact [--as-of T] [--json]`: archive what is long dead at T."""
    as_of = parse_time(getattr(args, "as_of", None), "--as-of") or datetime.now(UTC)
    with closing(deployment_of(args)) as deployment:
        report = deployment.compact(as_of)
    for user in report.skipped:
        print(f"compact: {user} kept changing; skipped this time", file=sys.stderr)
    if getattr(args, "json", False):
        emit(report.as_json())
        return 0
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(report.by_reason.items()))
    print(
        f"compacted as of {as_of.isoformat()}: archived {report.archived} of {report.scanned} "
        f"facts of {report.users} user(s)"
        + (f" ({reasons})" if reasons else "")
        + f"; {report.remaining} remain in the active store; archive: {report.archive}"
    )
    return 0
