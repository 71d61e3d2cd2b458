"""Observability (issue 14): Prometheus metrics by route template and status, ingest and
lifecycle counters, embedding time; OpenTelemetry spans through ingest and query sent to an
OTLP collector when FR_OTEL_ENDPOINT is set (nothing loaded otherwise); JSON logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from prometheus_client.parser import text_string_to_metric_families

from frecall.api import create_api
from frecall.deployment import Deployment
from frecall.observability.instrumented import Instrumented
from frecall.observability.logs import JsonFormatter
from frecall.observability.metrics import Metrics
from frecall.observability.tracing import OtlpTracing
from frecall.settings import Settings
from frecall.wiring import open_deployment

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))


def story(user: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in STORY.read_text("utf-8").splitlines() if line.strip()]
    return [{**r, "user_id": user} for r in rows]


def turn(turn_id: str, text: str) -> dict[str, Any]:
    return {
        "user_id": "ana",
        "session_id": "s",
        "turn_id": turn_id,
        "role": "user",
        "text": text,
        "timestamp": "2026-06-01T10:00:00Z",
    }


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    settings = Settings(data_dir=tmp_path / "data", embedder="hashing")
    with closing(open_deployment(settings, extractor="rules", serving=True, quiet=True)) as d:
        yield d


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_by_route_template_status_and_lifecycle(deployment: Deployment) -> None:
    metrics = Metrics()
    app = create_api(Instrumented(deployment, metrics, tracing_off()), metrics=metrics)
    with TestClient(app) as client:
        report = client.post("/v1/edges", json={"edges": story("maya")}).json()
        client.post("/v1/turns", json={"turns": [turn("t1", "I live in Porto.")]})
        client.post("/v1/query", json={"user_id": "maya", "query": "where?"})
        client.get("/v1/users/maya/memory")
        client.get("/v1/users/bob/memory")  # 404: the same route template
        client.get("/no/such/path")
        client.post("/v1/edges", json={"edges": [{"user_id": "x"}]})  # 422
        text = client.get("/metrics").text
    found = samples(text)

    def count(name: str, **labels: str) -> float:
        return found.get((name, tuple(sorted(labels.items()))), 0.0)

    route = "/v1/users/{user_id}/memory"
    histogram = "frecall_http_request_duration_seconds_count"
    assert count(histogram, method="GET", route=route, status="200") == 1
    assert count(histogram, method="GET", route=route, status="404") == 1
    assert count(histogram, method="GET", route="unmatched", status="404") == 1
    assert count(histogram, method="POST", route="/v1/edges", status="422") == 1
    assert not any("maya" in str(key) or "bob" in str(key) for key in found)  # no raw paths

    assert count("frecall_facts_ingested_total") == report["accepted"] + 2  # + the turn's 2
    assert count("frecall_turns_ingested_total") == 1
    for kind, n in report["transitions"].items():
        assert count("frecall_transitions_total", kind=kind) >= n
    assert count("frecall_query_duration_seconds_count") == 1
    assert count("frecall_embedding_duration_seconds_count", model="hashing-64") >= 2
    assert count("frecall_embedded_texts_total", model="hashing-64") >= report["accepted"]
    metrics.close()


def tracing_off() -> Any:
    from frecall.observability.tracing import Tracing

    return Tracing()


class Collector:
    """A fake OTLP/HTTP collector on loopback: keeps every exported span."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                for resource in request.resource_spans:
                    for scope in resource.scope_spans:
                        collector.spans.extend(scope.spans)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_spans_through_ingest_and_query(deployment: Deployment) -> None:
    collector = Collector()
    tracing = OtlpTracing(collector.url, "frecall-test")
    try:
        app = create_api(Instrumented(deployment, None, tracing), tracing=tracing)
        with TestClient(app) as client:
            assert client.post(
                "/v1/turns", json={"turns": [turn("t1", "I live in Porto.")]}
            ).is_success
            assert client.post("/v1/query", json={"user_id": "ana", "query": "where?"}).is_success
    finally:
        tracing.close()  # flushes
        collector.close()
    by_name = {s.name: s for s in collector.spans}
    assert {
        "POST /v1/turns",
        "frecall.ingest_turns",
        "frecall.embed",
        "POST /v1/query",
        "frecall.query",
    } <= set(by_name)
    # One trace per request: ingest inside the request, embedding inside the ingest.
    assert by_name["frecall.ingest_turns"].parent_span_id == by_name["POST /v1/turns"].span_id
    embeds = [s for s in collector.spans if s.name == "frecall.embed"]
    ingest, query = by_name["frecall.ingest_turns"], by_name["frecall.query"]
    assert any(s.parent_span_id == ingest.span_id for s in embeds)
    assert any(s.parent_span_id == query.span_id for s in embeds)  # the question's embedding


def test_without_an_endpoint_tracing_loads_nothing_and_starts_no_thread() -> None:
    # (FastAPI imports the OpenTelemetry *API* itself; with no provider it records nothing.
    # What must not load is the SDK and the exporter, nor a batch thread start.)
    probe = (
        "import sys, threading\n"
        "from frecall.api.server import serve\n"
        "from frecall.observability.tracing import setup_tracing\n"
        "from frecall.settings import Settings\n"
        "before = threading.active_count()\n"
        "t = setup_tracing(Settings())\n"
        "with t.span('x'): pass\n"
        "print(t.enabled, threading.active_count() - before,"
        " any(m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))"
        " for m in sys.modules))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "0", "False"]


def test_json_log_lines_keep_extra_fields() -> None:
    import logging

    record = logging.LogRecord("frecall.access", logging.INFO, __file__, 1, "GET %s", ("/x",), None)
    record.key_id = "0123456789ab"
    record.status = 200
    line = json.loads(JsonFormatter().format(record))
    assert (
        line["msg"] == "GET /x" and line["level"] == "INFO" and line["logger"] == "frecall.access"
    )
    assert line["key_id"] == "0123456789ab" and line["status"] == 200 and "ts" in line


def test_the_cli_logs_json_lines(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FR_")},
        "FR_EMBEDDER": "hashing",
    }
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "frecall.cli",
            "--log-format",
            "json",
            "-v",
            "ingest-edges",
            "--data-dir",
            str(tmp_path / "d"),
            str(STORY),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    logged = [json.loads(line) for line in out.stderr.splitlines() if line.startswith("{")]
    assert logged and all({"ts", "level", "logger", "msg"} <= set(entry) for entry in logged)
