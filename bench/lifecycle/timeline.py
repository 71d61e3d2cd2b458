"""One persona's facts and questions while they are being generated, and the ground truth.

A persona is a temporal state machine (paper C.1): facts are placed in sessions, each told in
one user turn; questions point at the facts that answer them (`gold`) and at those that must
not be served as current (`stale`). `final_states` derives every fact's state at the query
time from the facts alone — independently of the system under test — and is what the
generator and the tests hold the questions against.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench.lifecycle.personas import Persona
from schemas.categories import Category

#: Modes of a question: any gold id in the top k; all of them (AV5); or "nothing current"
#: (the paper's pass-by-absence rule for expired and retracted facts, Appendix K).
ANY, ALL, ABSENT = "any", "all", "absent"
#: Event-time categories (Appendix K: date-aware expiry applies to these).
EVENT_CATEGORIES = frozenset({Category.OBLIGATIONS, Category.LOGISTICAL_CONTEXT})


@dataclass(eq=False)
class Fact:
    """One fact as told in one user turn, with its gold metadata (`ingest-edges` fields)."""

    session: int
    say: str
    gold: str
    category: Category
    slot: str | None
    value: str | None = None
    update: str = "accumulate"
    confidence: float = 1.0
    event_time: datetime | None = None
    retracts: tuple[str, ...] = ()
    numeric: bool = False
    tag: str = ""
    #: The previous value, when the statement names it ("instead of cappuccinos").
    old: str | None = None
    order: float = 0.0
    #: Told in the turn right after this fact (anaphora: "scrap that").
    after: Fact | None = None
    fid: str = ""
    turn_id: str = ""
    time: datetime | None = None


@dataclass(eq=False)
class Question:
    av: str
    text: str
    kind: str
    variant: str
    mode: str
    gold: list[Fact] = field(default_factory=list)
    stale: list[Fact] = field(default_factory=list)
    support: list[Fact] = field(default_factory=list)


class Timeline:
    """Facts of one persona under construction; slots/domains are reserved per scenario so
    that two scenarios never write into the same slot (their ground truth stays separate)."""

    def __init__(self, persona: Persona, rng: random.Random) -> None:
        self.persona = persona
        self.rng = rng
        self.facts: list[Fact] = []
        self.questions: list[Question] = []
        self.reserved: set[str] = set()
        #: Small-talk turns (no fact) to add per session, then user turns per session.
        self.small_talk: dict[int, int] = {}
        self.session_turns: dict[int, int] = {}

    @property
    def last(self) -> int:
        return len(self.persona.sessions) - 1

    def when(self, session: int) -> datetime:
        return self.persona.sessions[session]

    def reserve(self, key: str) -> bool:
        if key in self.reserved:
            return False
        self.reserved.add(key)
        return True

    def add(
        self,
        session: int,
        say: str,
        gold: str,
        category: Category,
        slot: str | None,
        *,
        value: str | None = None,
        update: str = "accumulate",
        confidence: float = 1.0,
        event_time: datetime | None = None,
        retracts: tuple[str, ...] = (),
        numeric: bool = False,
        tag: str = "",
        old: str | None = None,
        after: Fact | None = None,
    ) -> Fact:
        fact = Fact(
            session, say, gold, category, slot, value, update, confidence, event_time,
            retracts, numeric, tag, old, self.rng.random(), after,
        )  # fmt: skip
        self.facts.append(fact)
        return fact

    def spread(self, n: int, lo: int, hi: int, gap: int = 3) -> list[int]:
        """n increasing sessions in [lo, hi], at least `gap` apart when the range allows."""
        hi = min(hi, self.last)
        gap = max(1, min(gap, (hi - lo) // max(n - 1, 1)))
        slack = (hi - lo) - gap * (n - 1)
        picks = sorted(self.rng.randint(0, max(slack, 0)) for _ in range(n))
        return [lo + p + i * gap for i, p in enumerate(picks)]


def final_states(facts: Sequence[Fact], as_of: datetime) -> dict[int, str]:
    """Ground-truth state of every fact at `as_of`, keyed by `id(fact)`.

    * a `replace` fact supersedes every earlier fact of its slot (the generator emits
      replace edges only for real replacements, at confidence ≥ 0.95);
    * `soft` facts supersede nothing (a hedge is not a change, Appendix F);
    * a retraction retracts every earlier fact of the slots it names;
    * an OBLIGATIONS/LOGISTICAL fact whose event lies before `as_of` is past ("expired").
    """
    state = {id(f): "active" for f in facts}
    timeline = sorted(facts, key=lambda f: (f.time or datetime.min, f.fid))
    by_slot: dict[str, list[Fact]] = {}
    for f in timeline:
        if f.time is not None and f.time > as_of:
            continue
        for slot in f.retracts:
            for old in by_slot.get(slot, ()):
                if state[id(old)] == "active":
                    state[id(old)] = "retracted"
        if f.slot is None:
            continue
        earlier = by_slot.setdefault(f.slot, [])
        if f.update == "replace":
            for old in earlier:
                if state[id(old)] == "active":
                    state[id(old)] = "superseded"
        earlier.append(f)
    for f in facts:
        if (
            state[id(f)] == "active"
            and f.event_time is not None
            and f.category in EVENT_CATEGORIES
            and f.event_time < as_of
        ):
            state[id(f)] = "past"
    return state


def last_weekday_before(day: datetime, weekday: int) -> datetime:
    """The most recent `weekday` (Mon=0) strictly before `day`, at noon."""
    back = (day.weekday() - weekday) % 7 or 7
    return (day - timedelta(days=back)).replace(hour=12, minute=0)
