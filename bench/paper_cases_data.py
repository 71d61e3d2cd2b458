"""The paper-cases suite's data: the paper's worked examples as gold-metadata facts.

Each JSON file under the cases directory (default `tests/paper_cases/data`) holds users; a
user has facts (the `frecall ingest-edges` fields, with times written relative to the
user's `start`) and questions, each asked in several phrasings. `fillers.json` holds facts
told about every user; `heldout.json` more phrasings of the same questions, reported apart.

Times: `s12` is session 12 (sessions 16 days apart from `start`, as the paper's personas
span ~35 sessions over ~18 months, Appendix C.1), `d-30` is 30 days before `start`; either
may add `+3d`, `+20h` or `-2h`; anything else is an ISO 8601 time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas.categories import Category, UpdateSemantics
from workers.errors import ConfigError

#: Days between two sessions of a persona.
SESSION_DAYS = 16
FILLERS_FILE = "fillers.json"
HELDOUT_FILE = "heldout.json"
_TIME = re.compile(r"(?:(s)(\d+)|(d)(-?\d+(?:\.\d+)?))((?:[+-]\d+(?:\.\d+)?[dh])*)")
_SHIFT = re.compile(r"([+-]\d+(?:\.\d+)?)([dh])")
_PRONOUNS = {"she": ("her", "she"), "he": ("his", "he"), "they": ("their", "they")}

Weights = Category | dict[Category, Annotated[float, Field(ge=0)]]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseFact(_Model):
    id: str = Field(min_length=1)
    at: str
    text: str = Field(min_length=1)
    category: Weights
    slot: str | None = None
    value: str | None = None
    confidence: float = Field(default=0.9, ge=0, le=1)
    update: UpdateSemantics | None = None
    event: str | None = None
    retracts: list[str] = []
    numeric: bool = False
    emotional_loading: float = Field(default=0.0, ge=0, le=1)
    quarantined: bool = False


class CaseQuestion(_Model):
    id: str = Field(min_length=1)
    as_of: str
    ask: list[str] = Field(min_length=1)
    gold: list[str] = []
    stale: list[str] = []
    mode: Literal["any", "all", "absent"] = "any"
    #: Exact-order requirements: the first id must rank above the second (both served).
    before: list[tuple[str, str]] = []


class CaseUser(_Model):
    user: str = Field(min_length=1, pattern=r"^[^\s/]+$")
    name: str
    pronoun: Literal["she", "he", "they"]
    start: datetime
    about: str = ""
    facts: list[CaseFact]
    questions: list[CaseQuestion]


class CaseFile(_Model):
    source: str
    users: list[CaseUser]


class Filler(_Model):
    text: str
    category: Weights
    numeric: bool = False


class FillerFile(_Model):
    about: str = ""
    fillers: list[Filler]


class HeldoutFile(_Model):
    about: str = ""
    phrasings: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class PaperQuestion:
    """One phrasing of one question, ready to ask."""

    qid: str
    source: str
    user_id: str
    text: str
    as_of: datetime
    mode: str
    gold: tuple[str, ...]
    stale: tuple[str, ...]
    before: tuple[tuple[str, str], ...]
    heldout: bool


@dataclass(frozen=True, slots=True)
class Suite:
    edges: tuple[dict[str, object], ...]  # `frecall ingest-edges` lines
    questions: tuple[PaperQuestion, ...]
    fact_texts: Mapping[str, str]  # edge id → text, for reports


def resolve_time(raw: str, start: datetime) -> datetime:
    """`s12+3d`, `d-30`, `d0+7h` or an ISO 8601 time (UTC when no zone is given)."""
    m = _TIME.fullmatch(raw.strip())
    if m is None:
        try:
            t = datetime.fromisoformat(raw)
        except ValueError as exc:
            raise ValueError(f"unreadable time {raw!r}") from exc
        return t if t.tzinfo else t.replace(tzinfo=UTC)
    session, days = m.group(2), m.group(4)
    at = (
        start + timedelta(days=SESSION_DAYS * (int(session) - 1))
        if session is not None
        else start + timedelta(days=float(days))
    )
    for amount, unit in _SHIFT.findall(m.group(5)):
        at += timedelta(days=float(amount)) if unit == "d" else timedelta(hours=float(amount))
    return at


def edge_id(user: str, fact: str) -> str:
    return f"{user}/{fact}"


def _category(raw: Weights) -> str | dict[str, float]:
    return raw.value if isinstance(raw, Category) else {c.value: w for c, w in raw.items()}


def _user_edges(user: CaseUser, fillers: Sequence[Filler]) -> Iterator[dict[str, object]]:
    pos, subj = _PRONOUNS[user.pronoun]
    times: list[datetime] = []
    for i, fact in enumerate(user.facts):
        # Facts of one session arrive a minute apart, in file order.
        at = resolve_time(fact.at, user.start) + timedelta(minutes=i)
        times.append(at)
        line: dict[str, object] = {
            "edge_id": edge_id(user.user, fact.id),
            "user_id": user.user,
            "text": fact.text,
            "category": _category(fact.category),
            "slot_key": fact.slot,
            "value": fact.value,
            "confidence": fact.confidence,
            "ingest_time": at.isoformat(),
            "retracts": fact.retracts,
            "numeric": fact.numeric,
            "emotional_loading": fact.emotional_loading,
            "quarantined": fact.quarantined,
        }
        if fact.update is not None:
            line["update"] = fact.update.value
        if fact.event is not None:
            line["event_time"] = resolve_time(fact.event, user.start).isoformat()
        yield line
    asked = [resolve_time(q.as_of, user.start) for q in user.questions]
    first = min(times) - timedelta(days=10)
    last = min(asked) - timedelta(days=1)
    span = max((last - first).total_seconds(), 0.0)
    for j, filler in enumerate(fillers):
        # Spread evenly over the user's story, always before the first question.
        at = first + timedelta(seconds=span * (j + 0.5) / len(fillers))
        yield {
            "edge_id": edge_id(user.user, f"filler.{j:02d}"),
            "user_id": user.user,
            "text": filler.text.format(name=user.name, pos=pos, subj=subj),
            "category": _category(filler.category),
            "slot_key": f"{user.user}.filler.{j:02d}",
            "confidence": 0.9,
            "ingest_time": at.isoformat(),
            "numeric": filler.numeric,
        }


def _check(user: CaseUser, path: Path) -> None:
    ids = [f.id for f in user.facts]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ConfigError(f"{path}: user {user.user} repeats fact ids {sorted(dup)}")
    known = set(ids)
    for q in user.questions:
        named = {*q.gold, *q.stale, *(x for pair in q.before for x in pair)}
        unknown = named - known
        if unknown:
            raise ConfigError(f"{path}: question {q.id} names unknown facts {sorted(unknown)}")
        if q.mode != "absent" and not q.gold:
            raise ConfigError(f"{path}: question {q.id} has no gold fact (mode {q.mode})")


def _read(path: Path, model: type[_Model]) -> _Model:
    try:
        return model.model_validate(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise ConfigError(f"paper cases: cannot read {path}: {exc}") from exc


def load_suite(directory: Path) -> Suite:
    """Every case file of `directory` expanded into edges and question phrasings."""
    if not directory.is_dir():
        raise ConfigError(f"paper cases: {directory} is not a directory")
    fillers_path = directory / FILLERS_FILE
    fillers = _read(fillers_path, FillerFile) if fillers_path.exists() else FillerFile(fillers=[])
    assert isinstance(fillers, FillerFile)
    heldout_path = directory / HELDOUT_FILE
    heldout = _read(heldout_path, HeldoutFile) if heldout_path.exists() else None
    extra = heldout.phrasings if isinstance(heldout, HeldoutFile) else {}
    edges: list[dict[str, object]] = []
    questions: list[PaperQuestion] = []
    users: set[str] = set()
    qids: set[str] = set()
    special = {FILLERS_FILE, HELDOUT_FILE}
    for path in sorted(p for p in directory.glob("*.json") if p.name not in special):
        case = _read(path, CaseFile)
        assert isinstance(case, CaseFile)
        for user in case.users:
            if user.user in users:
                raise ConfigError(f"{path}: user {user.user} is defined twice")
            users.add(user.user)
            _check(user, path)
            edges.extend(_user_edges(user, fillers.fillers))
            for q in user.questions:
                if q.id in qids:
                    raise ConfigError(f"{path}: question id {q.id} is used twice")
                qids.add(q.id)
                phrasings = [(t, False) for t in q.ask] + [(t, True) for t in extra.get(q.id, ())]
                for text, held in phrasings:
                    questions.append(
                        PaperQuestion(
                            qid=q.id,
                            source=path.stem,
                            user_id=user.user,
                            text=text,
                            as_of=resolve_time(q.as_of, user.start),
                            mode=q.mode,
                            gold=tuple(edge_id(user.user, f) for f in q.gold),
                            stale=tuple(edge_id(user.user, f) for f in q.stale),
                            before=tuple(
                                (edge_id(user.user, a), edge_id(user.user, b)) for a, b in q.before
                            ),
                            heldout=held,
                        )
                    )
    unknown = set(extra) - qids
    if unknown:
        raise ConfigError(f"{heldout_path}: phrasings for unknown questions {sorted(unknown)}")
    if not questions:
        raise ConfigError(f"paper cases: no case file with questions in {directory}")
    texts = {str(e["edge_id"]): str(e["text"]) for e in edges}
    return Suite(tuple(edges), tuple(questions), texts)
