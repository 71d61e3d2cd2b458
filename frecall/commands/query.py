"""`frecall query`: one query, or a batch file of them (one result a line, same order)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import closing

from frecall.commands.common import emit, parse_time, tenant_deployment
from schemas.categories import Intent
from schemas.query import QueryRequest, QueryResult
from schemas.results import ItemFailure
from workers.errors import ConfigError, InputError
from workers.inputs import Item, read_jsonl


def cmd_query(args: argparse.Namespace) -> int:
    if args.batch is None and (not args.user or not args.text):
        raise ConfigError("query needs --user U and the query text, or --batch FILE")
    if args.batch is not None:
        return _query_batch(args)
    request = QueryRequest(
        user_id=args.user,
        query=args.text,
        as_of=parse_time(args.as_of, "--as-of"),
        intent=None if args.intent == "auto" else Intent(args.intent),
        k=args.k,
    )
    with closing(tenant_deployment(args)) as deployment:
        result = deployment.query(request)
    if args.json:
        print(result.model_dump_json())
    else:
        _print_result(result)
    return 0


def _query_batch(args: argparse.Namespace) -> int:
    if not args.batch.is_file():
        raise ConfigError(f"{args.batch}: no such file")
    rejected = 0
    with closing(tenant_deployment(args)) as deployment:
        items = _default_k(read_jsonl(args.batch, QueryRequest), args.k)
        for answer in deployment.query_batch(items, str(args.batch)):
            if isinstance(answer, ItemFailure):
                rejected += 1
                # Keep output aligned with input: one object per line, same order.
                emit({"error": answer.reason, "line": answer.index})
                continue
            print(answer.model_dump_json(), flush=True)
    return 1 if rejected else 0


def _default_k(items: Iterator[Item[QueryRequest]], k: int) -> Iterator[Item[QueryRequest]]:
    """`--k` for the lines that do not give their own."""
    for position, raw, item in items:
        if not isinstance(item, InputError) and "k" not in json.loads(raw):
            item = item.model_copy(update={"k": k})
        yield position, raw, item


def _print_result(result: QueryResult) -> None:
    cats = ", ".join(f"{c.value} {p:.2f}" for c, p in result.categories.items())
    print(f"intent: {result.intent.value}   categories: {cats}")
    print(f"as of {result.as_of.isoformat()}, {result.candidates} candidates", end="")
    if result.suppressed:
        hidden = ", ".join(f"{n} {s}" for s, n in result.suppressed.items())
        print(f", suppressed: {hidden}", end="")
    print()
    for position, fact in enumerate(result.results, start=1):
        print(
            f"{position:>2}. {fact.score:.3f}  [{fact.category.value} · {fact.state.value}]  "
            f"{fact.text}"
        )
        print(f"      {'; '.join(fact.why)}")
