"""One exception base for the project; adapters turn library errors into these."""

from __future__ import annotations


class FRError(Exception):
    """Base of every error Fortunate Recall raises on purpose."""


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


class ConfigError(FRError):
    pass


def brief(exc: Exception, limit: int = 500) -> str:
    """A one-line reason (validation errors can be long and multi-line)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
