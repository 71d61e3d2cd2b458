"""Putting a turn's facts together: per-fact text spans, mood spreading, one fact per slot.

Helpers of `rules.RuleExtractor` that decide nothing about categories or slots.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.model import ExtractedFact

_MAX_TEXT = 4_900


_DELIMITER = re.compile(
    r",\s+|;\s*|\s+(?:and|but|plus|also)\s+(?=(?:i|i'm|i've|we|we're|my|our|the|rent|now)\b)",
    re.IGNORECASE,
)  # "an amazing and emotional wedding": "and" between adjectives does not cut


def segments(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """Cut a clause holding several facts so that each fact's text is its own part.

    "I love baklava, rent is 20,000 lira a month" → "I love baklava" / "rent is …".
    """
    if len(spans) < 2:
        return [text] * len(spans)
    bounds = [(m.start(), m.end()) for m in _DELIMITER.finditer(text)]
    out: list[str] = []
    for i, (start, _) in enumerate(spans):
        begin = max((e for b, e in bounds if e <= start), default=0)
        end = len(text)
        if i + 1 < len(spans):
            nxt = spans[i + 1][0]
            end = max((b for b, e in bounds if begin <= b and e <= nxt), default=len(text))
        out.append(text[begin:end].strip(" ,;") or text)
    return out


def spread_emotion(sentences_: list[tuple[bool, float]]) -> list[float]:
    """Mood modifies a fact (B.6): a sentence of pure feeling lends it to its neighbour."""
    out = [e if has else 0.0 for has, e in sentences_]
    for i, (has, e) in enumerate(sentences_):
        if has or e == 0.0:
            continue
        before = [j for j in range(i - 1, -1, -1) if sentences_[j][0]]
        after = [j for j in range(i + 1, len(sentences_)) if sentences_[j][0]]
        for j in before[:1] or after[:1]:
            out[j] = max(out[j], e)
    return out


def merge(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """One fact per slot per turn when the later one settles it.

    "Left Google, joining Anthropic": two replaces of one slot in one turn would tie on
    ingest time, so they become one fact whose last state wins. A later *soft* fact ("I
    live in Istanbul but I'm thinking about moving to London") stays a fact of its own.
    """
    out: list[ExtractedFact] = []
    by_key: dict[tuple[str, ...], int] = {}
    for fact in facts:
        key: tuple[str, ...] | None = None
        if fact.retracts:
            key = ("retracts", *fact.retracts)
        elif fact.slot_key:
            key = ("slot", fact.slot_key)
        earlier_i = by_key.get(key) if key is not None else None
        settles = earlier_i is not None and (
            fact.retracts
            or fact.update is d.R
            or (fact.update is out[earlier_i].update and fact.value == out[earlier_i].value)
        )
        if key is None or earlier_i is None or not settles:
            if key is not None:
                by_key[key] = len(out)
            out.append(fact)
            continue
        i = earlier_i
        earlier = out[i]
        loading = max(earlier.emotional_loading, fact.emotional_loading)
        if fact.retracts:
            out[i] = revalidated(earlier, emotional_loading=loading)
        else:
            text = fact.text if fact.text in earlier.text else f"{earlier.text}; {fact.text}"
            out[i] = revalidated(
                fact,
                text=text[:_MAX_TEXT],
                event_time=fact.event_time or earlier.event_time,
                emotional_loading=loading,
            )
    return out


def revalidated(fact: ExtractedFact, **changes: object) -> ExtractedFact:
    """A changed copy that is validated again (slot keys and retracts stay normalized)."""
    return ExtractedFact.model_validate({**fact.model_dump(), **changes})
