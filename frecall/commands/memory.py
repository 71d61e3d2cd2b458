"""`frecall export`, `forget` and `inspect`: one user's memory, out, erased, explained."""

from __future__ import annotations

import argparse
from contextlib import closing
from typing import Any

from frecall.commands.common import emit, parse_time, tenant_deployment
from schemas.results import Inspection
from workers.export import dumps_stable


def cmd_export(args: argparse.Namespace) -> int:
    with closing(tenant_deployment(args)) as deployment:
        print(dumps_stable(deployment.export(args.user).model_dump()))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    """Erase; the distributed deployment queues the command (the workers apply it)."""
    with closing(tenant_deployment(args)) as deployment:
        receipt = deployment.forget(args.user, args.edge, wait=False)
    document: dict[str, Any] = {"user_id": receipt.user_id, "edge_id": receipt.edge_id}
    if receipt.pending:
        document["queued"] = receipt.command_id
        if args.json:
            emit(document)
        else:
            print(f"forget queued on fr.commands as {receipt.command_id}")
        return 0
    document |= {"removed": receipt.removed, "at": receipt.at.isoformat()}
    if args.json:
        emit(document)
    else:
        what = f"fact {args.edge}" if args.edge else f"user {args.user}"
        counts = ", ".join(f"{k}: {v}" for k, v in receipt.removed.items())
        print(f"forgot {what} — removed {counts}")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    """The memory by category and state, and why each fact persists or fades (B.4)."""
    as_of = parse_time(args.as_of, "--as-of")
    with closing(tenant_deployment(args)) as deployment:
        view = deployment.inspect(args.user, as_of)
    if args.json:
        emit(_inspection_json(view))
        return 0
    print(f"memory of {args.user} as of {view.as_of.isoformat()} — {view.facts} facts")
    for category, states in view.categories.items():
        print(f"\n{category}")
        for state, facts in states.items():
            for fact in facts:
                print(f"  [{state}] a={fact.activation:.2f}  {fact.text}")
                print(f"      {'; '.join(fact.why[1:] if state == 'active' else fact.why)}")
    return 0


def _inspection_json(view: Inspection) -> dict[str, Any]:
    """The JSON of `frecall inspect --json` (a stable subset of the typed result)."""
    keep = {"edge_id", "text", "activation", "why"}
    categories = {
        category: {
            state: [f.model_dump(include=keep) for f in facts] for state, facts in states.items()
        }
        for category, states in view.categories.items()
    }
    return {"user_id": view.user_id, "as_of": view.as_of.isoformat(), "categories": categories}
