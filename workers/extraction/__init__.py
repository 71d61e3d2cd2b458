"""Extraction: a conversation turn → classified facts with lifecycle metadata (paper §3).

`RuleExtractor` is the offline default (no LLM configured); an LLM extractor produces the
same `ExtractedFact`s. Nothing here does I/O or loads a model at import time; the rule
extractor's patterns and dateparser are imported only when first asked for, so modules that
need just `ExtractedFact` stay cheap to import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workers.extraction.dates import (
        DateMention,
        find_event_time,
        has_date_cue,
        resolve_event_time,
    )
    from workers.extraction.model import ExtractedFact
    from workers.extraction.rules import RuleExtractor

__all__ = [
    "DateMention",
    "ExtractedFact",
    "RuleExtractor",
    "find_event_time",
    "has_date_cue",
    "resolve_event_time",
]

_HOMES = {
    "DateMention": "workers.extraction.dates",
    "find_event_time": "workers.extraction.dates",
    "has_date_cue": "workers.extraction.dates",
    "resolve_event_time": "workers.extraction.dates",
    "ExtractedFact": "workers.extraction.model",
    "RuleExtractor": "workers.extraction.rules",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
