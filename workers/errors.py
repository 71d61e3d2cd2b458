"""One exception tree for the project; adapters turn library errors into these.

    FRError
    ├── ConfigError         a setting, flag or file that cannot work
    ├── InputError          a malformed input line (FILE:LINE: reason)
    ├── StorageError        a store, broker or service failed
    ├── NotQueryable        read-your-writes: edges not queryable in time
    ├── EmbeddingError
    ├── ExtractionError     (workers.extraction.llm.LLMExtractionError)
    ├── InvalidResponse     an LLM answer outside its contract (workers.extraction.prompt)
    └── BenchError          a benchmark could not complete a stage

Each class takes structured fields and builds its message from them (httpx's
`_exceptions.py` is the model), so that callers can branch on fields, not on text.
"""

from __future__ import annotations


class FRError(Exception):
    """Base of every error Fortunate Recall raises on purpose (never raised itself)."""


class StorageError(FRError):
    def __init__(self, store: str, operation: str, detail: str) -> None:
        self.store, self.operation, self.detail = store, operation, detail
        super().__init__(f"{store}: {operation} failed: {detail}")


class EmbeddingError(FRError):
    def __init__(self, embedder: str, detail: str) -> None:
        self.embedder, self.detail = embedder, detail
        super().__init__(f"embedder {embedder}: {detail}")


class ExtractionError(FRError):
    def __init__(self, turn_id: str, detail: str) -> None:
        self.turn_id, self.detail = turn_id, detail
        super().__init__(f"extraction of turn {turn_id} failed: {detail}")


class InputError(FRError):
    """A malformed input line: reported as FILE:LINE: reason and dead-lettered."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        self.source, self.line, self.reason = source, line, reason
        super().__init__(f"{source}:{line}: {reason}")


class NotQueryable(FRError):
    """Read-your-writes: edges that were not queryable within the wait (HTTP 503; settled: 409).

    `settled`: the pipeline had applied everything sent for the user and they were still
    not in the user's memory — they never will be (another user's ids, erased, or never
    sent), so the answer came without waiting out the timeout.
    """

    def __init__(
        self, missing: list[str], timeout: float, user_id: str | None = None, settled: bool = False
    ) -> None:
        self.missing, self.timeout, self.settled = missing, timeout, settled
        whose = "" if user_id is None else f" for user {user_id}"
        if settled:
            why = (
                f"not in the memory of user {user_id}: wait_for takes the ids an ingest of "
                "this user's writes returned (another user's never become queryable here; "
                "erased ones are gone)"
            )
        else:
            why = f"not queryable{whose} within {timeout:g} s"
        super().__init__(f"{why}: {', '.join(missing)}")


class ConfigError(FRError):
    """A setting, flag or input file that cannot work; `detail` says which and why."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


class BenchError(FRError):
    """A benchmark could not complete a stage (a timeout, a worker that died, bad sizes)."""

    def __init__(self, bench: str, stage: str, detail: str) -> None:
        self.bench, self.stage, self.detail = bench, stage, detail
        super().__init__(f"bench {bench}: {stage}: {detail}")


def brief(exc: Exception, limit: int = 500) -> str:
    """A one-line reason (validation errors can be long and multi-line)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
