"""LoCoMo (Maharana et al., ACL 2024) → our turn events and evidence-scored questions.

The data is CC BY-NC 4.0 and is read from wherever `--data` points; nothing of it is
bundled. Quirks handled here (see the data's README): `conv-26` has `*_date_time` keys
for sessions that do not exist, so sessions come from the `session_<n>` lists; a few
evidence strings are malformed ("D8:6; D9:17", "D30:05", "D:11:26", space-joined lists,
a bare "D") or point at turns that do not exist; four questions have no evidence at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from schemas.events import TurnEvent

#: The JSON's `category` codes (verified mapping, not the paper's §4.1 numbering).
CATEGORY_NAMES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}

#: Turns of a session are a few seconds apart so that their order survives in timestamps.
TURN_SPACING = timedelta(seconds=10)
#: Questions are asked a day after the last session: every turn is already known.
QUESTION_DELAY = timedelta(days=1)

_SESSION_KEY = re.compile(r"session_(\d+)")
_SESSION_TIME = re.compile(
    r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*", re.I
)
_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTHS = {name: i for i, name in enumerate(_MONTH_NAMES, start=1)}
# "D:11:26" is "D11:26" with a stray colon; leading zeros ("D30:05") are dropped by int().
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True, slots=True)
class Question:
    user_id: str
    text: str
    category: int
    evidence: frozenset[str]
    as_of: datetime

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, str(self.category))


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    turns: tuple[TurnEvent, ...]
    questions: tuple[Question, ...]
    #: QA items left out because their evidence list is empty.
    skipped_empty: int
    #: QA items left out because none of their evidence names a turn of the conversation.
    skipped_unknown: int
    #: Evidence ids dropped from kept questions: unparseable or naming no turn.
    dropped_evidence: int


def parse_session_time(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" → an aware UTC datetime (the data gives no zone)."""
    m = _SESSION_TIME.fullmatch(text)
    if m is None:
        raise ValueError(f"unrecognized LoCoMo session time: {text!r}")
    hour, minute, half, day, month_name, year = m.groups()
    month = _MONTHS.get(month_name.lower())
    if month is None:
        raise ValueError(f"unrecognized month in LoCoMo session time: {text!r}")
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), month, int(day), h, int(minute), tzinfo=UTC)


def normalize_evidence(raw: Iterable[object]) -> tuple[set[str], int]:
    """(canonical dia_ids "D<s>:<t>", count of strings with nothing parseable)."""
    found: set[str] = set()
    unparseable = 0
    for item in raw:
        ids = [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE.findall(str(item))]
        if not ids:
            unparseable += 1
        found.update(ids)
    return found, unparseable


def _sessions(conversation: Mapping[str, Any]) -> list[tuple[int, list[Mapping[str, Any]]]]:
    numbered = []
    for key, value in conversation.items():
        m = _SESSION_KEY.fullmatch(key)
        if m and isinstance(value, list):
            numbered.append((int(m.group(1)), value))
    return sorted(numbered, key=lambda pair: pair[0])


def turn_text(turn: Mapping[str, Any]) -> str:
    """What was said, by whom; a shared photo is known to us only by its caption."""
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    if caption:
        text += f" [shares a photo: {caption}]"
    return text


def convert(sample: Mapping[str, Any]) -> Conversation:
    """One LoCoMo sample → its turns (both speakers as "user") and its questions."""
    user = str(sample["sample_id"])
    conversation = sample["conversation"]
    turns: list[TurnEvent] = []
    last_time: datetime | None = None
    for n, session in _sessions(conversation):
        start = parse_session_time(str(conversation[f"session_{n}_date_time"]))
        last_time = start if last_time is None else max(last_time, start)
        for i, turn in enumerate(session):
            turns.append(
                TurnEvent(
                    user_id=user,
                    session_id=f"session_{n}",
                    turn_id=str(turn["dia_id"]),
                    # Both speakers are people whose facts matter: neither is an assistant.
                    role="user",
                    text=turn_text(turn),
                    timestamp=start + i * TURN_SPACING,
                )
            )
    if last_time is None:
        raise ValueError(f"{user}: no session_<n> lists")
    known = {t.turn_id for t in turns}
    as_of = last_time + QUESTION_DELAY
    questions: list[Question] = []
    empty = unknown = dropped = 0
    for qa in sample.get("qa", ()):
        raw = qa.get("evidence") or []
        if not raw:
            empty += 1
            continue
        evidence, unparseable = normalize_evidence(raw)
        real = evidence & known
        if not real:
            unknown += 1
            continue
        dropped += unparseable + len(evidence - real)
        category = int(qa["category"])
        questions.append(Question(user, str(qa["question"]), category, frozenset(real), as_of))
    return Conversation(user, tuple(turns), tuple(questions), empty, unknown, dropped)


def load(path: Path, limit: int | None = None) -> list[Conversation]:
    """The first `limit` conversations (all when None) of a LoCoMo JSON file."""
    with path.open(encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of LoCoMo samples")
    samples: Sequence[Mapping[str, Any]] = data if limit is None else data[:limit]
    return [convert(s) for s in samples]


def write_turns(conversations: Iterable[Conversation], path: Path) -> int:
    """The `frecall ingest` JSONL of every conversation; the number of lines written."""
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for conv in conversations:
            for turn in conv.turns:
                f.write(turn.model_dump_json() + "\n")
                n += 1
    return n
