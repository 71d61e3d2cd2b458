"""OpenTelemetry traces when `FR_OTEL_ENDPOINT` is set: a span per HTTP request, per
`Deployment` call (ingest, query, export, forget, inspect) and per embedder batch, sent by
the OTLP/HTTP exporter. Unset, `Tracing` is a no-op: OpenTelemetry is not even imported, no
exporter is made and no thread started.

The endpoint is the collector's base URL (`http://127.0.0.1:4318`, like
OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `<endpoint>/v1/traces`. Spans of one request nest
through the context (FastAPI copies it into the thread that runs a handler).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from frecall.observability import timings
from frecall.settings import Settings

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

Attributes = dict[str, str | int | float | bool]


class Tracing:
    """Spans, or nothing. `span(name, **attributes)` is a context manager either way."""

    enabled = False

    def span(
        self, name: str, **attributes: str | int | float | bool
    ) -> AbstractContextManager[Any]:
        return nullcontext()

    def close(self) -> None:
        pass


class OtlpTracing(Tracing):
    """Spans exported over OTLP/HTTP in batches (a background thread of the exporter)."""

    enabled = True

    def __init__(self, endpoint: str, service: str) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        url = endpoint.rstrip("/")
        url = url if url.endswith("/v1/traces") else url + "/v1/traces"
        self.provider: TracerProvider = TracerProvider(
            resource=Resource.create({"service.name": service})
        )
        self.provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
        self._tracer = self.provider.get_tracer("frecall")
        self._unhook: Callable[[], None] = timings.EMBEDDING.add(self._embedded)

    @contextmanager
    def span(self, name: str, **attributes: str | int | float | bool) -> Iterator[Any]:
        with self._tracer.start_as_current_span(name, attributes=attributes) as span:
            yield span

    def _embedded(self, model: str, texts: int, start_ns: int, end_ns: int) -> None:
        # Reported after the call, in the caller's thread and context: a child of its span.
        span = self._tracer.start_span(
            "frecall.embed", start_time=start_ns, attributes={"model": model, "texts": texts}
        )
        span.end(end_time=end_ns)

    def close(self) -> None:
        self._unhook()
        self.provider.shutdown()  # flushes what is still batched


def setup_tracing(settings: Settings) -> Tracing:
    if not settings.otel_endpoint:
        return Tracing()
    return OtlpTracing(settings.otel_endpoint, settings.otel_service_name)
