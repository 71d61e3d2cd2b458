"""The work behind each `frecall` command: open the deployment, do one thing, report."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from frecall import demo, distributed
from frecall.bootstrap import (
    build,
    embedder_settings,
    make_embedder,
    make_extractor,
    make_slots,
    make_vectors,
)
from frecall.settings import Settings
from schemas.categories import CATEGORY_ORDER, Intent
from schemas.events import UtcDatetime
from schemas.policy import load_policy
from schemas.query import QueryRequest
from scorer.rank import rank
from scorer.score import QueryContext
from scorer.tables import PolicyTables
from streams.embedded import EmbeddedPipeline, IngestReport
from streams.replay import rebuild
from workers.app import App
from workers.embedding.compat import check_log_model
from workers.errors import ConfigError, InputError
from workers.export import dumps_stable, export_user
from workers.inputs import read_jsonl
from workers.lifecycle.service import LifecycleService
from workers.query.candidates import hours, to_candidate
from workers.query.explain import reasons
from workers.stores.file_log import FileEventLog

_TIME = TypeAdapter(UtcDatetime)


def settings_from(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None) is not None:
        overrides["data_dir"] = args.data_dir
    return Settings(**overrides)


def parse_time(raw: str | None, flag: str) -> datetime | None:
    if raw is None:
        return None
    try:
        return _TIME.validate_python(raw)
    except ValidationError as exc:
        raise ConfigError(f"{flag}: not an ISO 8601 time: {raw!r}") from exc


def _emit(document: Any) -> None:
    print(json.dumps(document, ensure_ascii=False))


def run(args: argparse.Namespace) -> int:
    handlers = {
        "ingest": cmd_ingest,
        "ingest-edges": cmd_ingest_edges,
        "query": cmd_query,
        "replay": cmd_replay,
        "export": cmd_export,
        "forget": cmd_forget,
        "inspect": cmd_inspect,
        "serve": cmd_serve,
        "demo": demo.run,
        "compact": cmd_compact,
        "worker": cmd_worker,
    }
    return handlers[args.command](args)


def cmd_compact(args: argparse.Namespace) -> int:
    from frecall.maintenance import compact_cmd

    return compact_cmd(args)


def cmd_worker(args: argparse.Namespace) -> int:
    from frecall.distributed import worker_cmd

    return worker_cmd(args)


def _with_app(args: argparse.Namespace, fsync: bool = True) -> App:
    settings = settings_from(args)
    if settings.kafka_bootstrap:
        settings = distributed.reader_settings(settings)
    return build(settings, fsync=fsync)


def _report(report: IngestReport, what: str) -> None:
    summary = ", ".join(f"{k} {v}" for k, v in sorted(report.transitions.items()))
    turns = f"{report.turns} turns → " if report.turns else ""
    print(
        f"{turns}ingested {report.accepted} {what}, rejected {report.rejected}, "
        f"failed {report.failed}" + (f" ({summary})" if summary else ""),
        file=sys.stderr,
    )


def _produced(report: distributed.Produced, what: str, topic: str) -> int:
    print(
        f"produced {report.accepted} {what} to {topic}, rejected {report.rejected}",
        file=sys.stderr,
    )
    return 0 if report.rejected == 0 else 1


def cmd_ingest(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise ConfigError(f"{args.file}: no such file")
    settings = settings_from(args)
    if settings.kafka_bootstrap:
        return _produced(distributed.produce_turns(settings, args.file), "turns", "fr.turns")
    extractor = make_extractor(settings, args.extractor)
    app = build(settings, extractor=extractor)
    try:
        report = EmbeddedPipeline(app).ingest_turns(args.file, extractor)
    finally:
        app.close()
    _report(report, "edges")
    return 0 if report.ok else 1


def cmd_ingest_edges(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise ConfigError(f"{args.file}: no such file")
    settings = settings_from(args)
    if settings.kafka_bootstrap:
        return _produced(distributed.produce_edges(settings, args.file), "facts", "fr.edges")
    app = build(settings)
    try:
        report = EmbeddedPipeline(app).ingest_edges(args.file)
    finally:
        app.close()
    _report(report, "facts")
    return 0 if report.ok else 1


def _print_result(result: Any) -> None:
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


def cmd_query(args: argparse.Namespace) -> int:
    if args.batch is None and (not args.user or not args.text):
        raise ConfigError("query needs --user U and the query text, or --batch FILE")
    app = _with_app(args)
    try:
        if args.batch is None:
            request = QueryRequest(
                user_id=args.user,
                query=args.text,
                as_of=parse_time(args.as_of, "--as-of"),
                intent=None if args.intent == "auto" else Intent(args.intent),
                k=args.k,
            )
            result = app.queries.query(request)
            if args.json:
                print(result.model_dump_json())
            else:
                _print_result(result)
            return 0
        return _query_batch(app, args)
    finally:
        app.close()


def _query_batch(app: App, args: argparse.Namespace) -> int:
    if not args.batch.is_file():
        raise ConfigError(f"{args.batch}: no such file")
    rejected = 0
    for lineno, raw, item in read_jsonl(args.batch, QueryRequest):
        if isinstance(item, InputError):
            rejected += 1
            print(str(item), file=sys.stderr)
            app.dead_letters.put(item.source, str(lineno), item.reason, raw)
            # Keep output aligned with input: one object per line, same order.
            _emit({"error": item.reason, "line": lineno})
            continue
        request = item if "k" in json.loads(raw) else item.model_copy(update={"k": args.k})
        print(app.queries.query(request).model_dump_json(), flush=True)
    return 1 if rejected else 0


def cmd_replay(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if args.from_kafka:
        summary = distributed.replay(settings)
        if args.json:
            _emit(summary)
        else:
            print(
                f"replayed {summary['edges']} facts from Kafka into generation "
                f"{summary['generation']} in {summary['seconds']:.1f} s "
                f"({summary['skipped_forgotten']} forgotten facts skipped)"
            )
        return 0
    if not settings.embedded:
        raise ConfigError("replay of service-backed stores is `frecall replay --from-kafka`")
    data = settings.data_dir
    policy = load_policy(settings.policy_file)
    embedder = make_embedder(settings)
    log = FileEventLog(data / "log", fsync=False)
    try:
        # Replay copies the logged vectors; the stores it builds are then queried with the
        # configured embedder, so the two must be the same model (workers/embedding/compat).
        check_log_model(log, embedder.model_id, embedder_settings(settings))
    except BaseException:
        log.close()
        raise
    dim = embedder.dim
    new_q, new_s = data / "qdrant.replay", data / "slots.replay.sqlite"
    shutil.rmtree(new_q, ignore_errors=True)
    new_s.unlink(missing_ok=True)
    try:
        vectors, slots = make_vectors(settings, dim, new_q), make_slots(settings, new_s)
        try:
            report = rebuild(log, LifecycleService(slots, vectors, policy), total=log.count())
        finally:
            vectors.close()
            slots.close()
    finally:
        log.close()
    # Switch over only once the new stores are complete: a failed replay leaves the old.
    shutil.rmtree(data / "qdrant", ignore_errors=True)
    new_q.rename(data / "qdrant")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{data / 'slots.sqlite'}{suffix}").unlink(missing_ok=True)
    new_s.rename(data / "slots.sqlite")
    summary = {
        "edges": report.edges,
        "skipped_forgotten": report.skipped_forgotten,
        "forget_commands": report.forget_commands,
        "seconds": round(report.seconds, 3),
        "edges_per_s": round(report.edges / report.seconds, 1) if report.seconds else None,
    }
    if args.json:
        _emit(summary)
    else:
        print(
            f"replayed {report.edges} facts from the log in {report.seconds:.1f} s "
            f"({report.skipped_forgotten} forgotten facts skipped)"
        )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings.kafka_bootstrap:
        print(distributed.export_document(settings, args.user))
        return 0
    app = build(settings)
    try:
        print(dumps_stable(export_user(app.vectors, args.user)))
    finally:
        app.close()
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if settings.kafka_bootstrap:
        command = distributed.produce_forget(settings, args.user, args.edge)
        document = {"user_id": args.user, "edge_id": args.edge, "queued": command.command_id}
        if args.json:
            _emit(document)
        else:
            print(f"forget queued on fr.commands as {command.command_id}")
        return 0
    app = build(settings)
    try:
        receipt = EmbeddedPipeline(app).forget(args.user, args.edge)
    finally:
        app.close()
    document = {
        "user_id": receipt.user_id,
        "edge_id": receipt.edge_id,
        "removed": dict(receipt.removed),
        "at": datetime.now(UTC).isoformat(),
    }
    if args.json:
        _emit(document)
    else:
        what = f"fact {args.edge}" if args.edge else f"user {args.user}"
        counts = ", ".join(f"{k}: {v}" for k, v in receipt.removed.items())
        print(f"forgot {what} — removed {counts}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The HTTP API until SIGINT/SIGTERM (FastAPI and uvicorn load only for this command)."""
    from frecall.api import ApiLimits
    from frecall.api.server import serve

    settings = settings_from(args)
    print(f"frecall: serving on http://{args.host}:{args.port} (docs: /docs)", file=sys.stderr)
    serve(settings, args.host, args.port, limits=ApiLimits(settings.http_max_body_bytes))
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    """The memory by category and state, and why each fact persists or fades (B.4)."""
    app = _with_app(args)
    try:
        as_of = parse_time(args.as_of, "--as-of") or datetime.now(UTC)
        records = sorted(
            app.vectors.scroll(args.user), key=lambda r: (r.edge.ingest_time, r.edge_id)
        )
    finally:
        app.close()
    tables = PolicyTables.compile(app.policy)
    candidates = [to_candidate(r, 1.0) for r in records]
    _, scores = rank(candidates, QueryContext(as_of_h=hours(as_of)), tables, k=0)
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for i, record in enumerate(records):
        state = scores.state_name(i)
        terms = scores.terms(i)
        grouped[record.edge.primary_category.value][state].append(
            {
                "edge_id": record.edge_id,
                "text": record.edge.text,
                "activation": round(terms["activation"], 4),
                "why": reasons(record, state, terms, as_of, app.policy),
            }
        )
    ordered = {
        c.value: dict(sorted(grouped[c.value].items()))
        for c in CATEGORY_ORDER
        if c.value in grouped
    }
    if args.json:
        _emit({"user_id": args.user, "as_of": as_of.isoformat(), "categories": ordered})
        return 0
    print(f"memory of {args.user} as of {as_of.isoformat()} — {len(records)} facts")
    for category, states in ordered.items():
        print(f"\n{category}")
        for state, facts in states.items():
            for fact in facts:
                print(f"  [{state}] a={fact['activation']:.2f}  {fact['text']}")
                print(f"      {'; '.join(fact['why'][1:] if state == 'active' else fact['why'])}")
    return 0
