"""Turns of any length: the whole text kept as raw episodic chunks, facts from a bounded window.

A turn is never rejected for its length (DESIGN §6: "a pasted document of 100,000 characters
is kept"). Two things a long turn needs that a short one does not:

* **Chunks.** The raw turn (paper Appendix AA) is kept whole, as consecutive chunks that
  concatenate to the exact text. Each chunk is its own episodic edge, embedded on its own: the
  embedder reads at most 256 tokens (`workers/embedding/minilm.py`), so a 100,000-character
  turn embedded as one text would be findable by its first paragraph only. A chunk of about
  1,000 characters (≈ 250 tokens of English) is read whole.
* **A bounded extraction window.** Extraction (rules or an LLM prompt) sees the turn's prose —
  fenced code removed — and, when that is long, only its beginning and its end: what a user
  says about themselves sits around what they paste ("here is my CV: …", "… anyway, I moved
  to Lisbon"), and the cost of a prompt or of the rules must not grow with the paste. What
  the window leaves out stays findable through its chunks.

Only the chunks that overlap the window inherit the lifecycle state of the turn's facts (a
pasted document does not become superseded because a fact stated beside it changed); only
those were read for facts, so the others get the instruction guard here (B.5).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schemas.events import TurnEvent
from workers.extraction.patterns_guard import is_instruction

#: Target size of a raw chunk (≈ 250 MiniLM tokens of English, under its 256-token limit).
RAW_CHUNK_CHARS = 1_000
#: Characters of prose that extraction reads: the first and the last half of this.
WINDOW_CHARS = 4_000
#: Where a chunk may end, best first: a paragraph, a line, a sentence, a word.
_BREAKS = (
    re.compile(r"\n\s*\n"),
    re.compile(r"\n"),
    re.compile(r"[.!?…][\"')\]]*\s"),
    re.compile(r"\s"),
)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_END = re.compile(r"[.!?…\n]\s*")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A consecutive part of a turn's text: `text == turn.text[start:end]`."""

    start: int
    end: int
    text: str
    #: Overlaps the extraction window: inherits the state of the turn's facts.
    in_window: bool
    #: Holds instruction-like content the extractor never read (outside the window).
    instruction: bool = False


def _cut(text: str, start: int, size: int) -> int:
    """Where the chunk starting at `start` ends: at the best break in its second half."""
    limit = start + size
    if limit >= len(text):
        return len(text)
    lower = start + size // 2
    for pattern in _BREAKS:
        ends = [m.end() for m in pattern.finditer(text, lower, limit)]
        if ends:
            return ends[-1]
    return limit  # no break at all (a base64 blob): cut anywhere


def chunk_spans(text: str, size: int = RAW_CHUNK_CHARS) -> list[tuple[int, int]]:
    """Consecutive spans covering `text` exactly, each about `size` characters or less.

    A span of nothing but whitespace joins the previous one (up to 4 × `size`), so chunks
    have content.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = _cut(text, start, size)
        if spans and not text[start:end].strip() and end - spans[-1][0] <= 4 * size:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        start = end
    return spans


def _window_regions(length: int, size: int) -> list[tuple[int, int]]:
    """The regions of a text of `length` characters that extraction reads (in its coordinates)."""
    if length <= size:
        return [(0, length)]
    half = size // 2
    return [(0, half), (length - half, length)]


def prose(text: str) -> str:
    """The text without fenced code blocks (an unclosed fence runs to the end)."""
    return _FENCE.sub("\n\n", text) if "```" in text else text


def window_text(text: str, size: int = WINDOW_CHARS) -> str:
    """What extraction reads: the prose, or its first and last `size // 2` characters cut at
    sentence ends, so that no sentence is read half."""
    body = prose(text)
    if len(body) <= size:
        return body
    half = size // 2
    head = body[:half]
    ends = list(_SENTENCE_END.finditer(head))
    if ends and ends[-1].end() > half // 2:
        head = head[: ends[-1].end()]
    tail_start = len(body) - half
    first = _SENTENCE_END.search(body, tail_start)
    if first is not None and first.end() < tail_start + half // 2:
        tail_start = first.end()
    return f"{head.rstrip()}\n\n{body[tail_start:].lstrip()}"


def extraction_turn(turn: TurnEvent, size: int = WINDOW_CHARS) -> TurnEvent:
    """The turn as extraction and the session context see it (the same turn when short)."""
    text = window_text(turn.text, size)
    return turn if text == turn.text else turn.model_copy(update={"text": text})


def raw_chunks(text: str, size: int = RAW_CHUNK_CHARS, window: int = WINDOW_CHARS) -> list[Chunk]:
    """The raw episodic chunks of a turn's text (one chunk when the text is short)."""
    regions = _window_regions(len(text), window)
    out: list[Chunk] = []
    for start, end in chunk_spans(text, size):
        inside = any(start < r_end and r_start < end for r_start, r_end in regions)
        part = text[start:end]
        out.append(
            Chunk(
                start,
                end,
                part,
                in_window=inside,
                instruction=not inside and any(is_instruction(s) for s in _sentences(part)),
            )
        )
    return out


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]
