"""Scheduled things (AV2 expired logistics) and plans that get dropped (AV7 selective
forgetting): event-time anchored facts (paper §3.3, Appendix K) and retractions in varied
language ("the dog thing is dead", "scrap it", "forget I mentioned it"; docs/architecture.md,
"Lifecycle state")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bench.tables import load, pools, records
from schemas.categories import Category


@dataclass(frozen=True, slots=True)
class EventKind:
    """Something on the calendar. {when}: "on March 20 at 3pm"; {to}: "to March 22"."""

    name: str
    category: Category
    slot: str
    noun: str
    say: tuple[str, ...]
    move: tuple[str, ...]
    timed: bool = True
    #: Hours it may start at (a concert at 9am reads oddly).
    hours: tuple[int, ...] = (9, 10, 11, 14, 15, 16, 17)


_DATA = load("bench.lifecycle", "events")
#: Appointments, flights, deadlines, deliveries, … (`data/events.toml`).
EVENT_KINDS: dict[str, EventKind] = records(EventKind, _DATA["events"])
#: Questions about one kind of event: upcoming, or (pass-by-absence) long past.
ASK_EVENT: tuple[str, ...] = tuple(_DATA["calendar"]["ask_event"])
ASK_ANY_UPCOMING: tuple[str, ...] = tuple(_DATA["calendar"]["ask_any_upcoming"])
#: {place}/{item} of an event kind; "flight" is filled from the persona's zone cities.
EVENT_PLACES: dict[str, tuple[str, ...]] = pools(_DATA["event_places"])
_MONTHS: tuple[str, ...] = tuple(_DATA["months"])
_DAYS: tuple[str, ...] = tuple(_DATA["weekdays"])


def _clock(t: datetime) -> str:
    hour = t.hour % 12 or 12
    minutes = f":{t.minute:02d}" if t.minute else ""
    return f"{hour}{minutes}{'am' if t.hour < 12 else 'pm'}"


def when_phrases(said: datetime, at: datetime, timed: bool, pick: int) -> tuple[str, str]:
    """("on March 20 at 3pm", "to March 20 at 3pm") or a relative form when it is near.

    `pick` chooses among the forms that are valid for the distance (tomorrow, a weekday
    within the week, or the date), so the conversation varies its date language.
    """
    days = (at.date() - said.date()).days
    clock = f" at {_clock(at)}" if timed else ""
    date = f"{_MONTHS[at.month - 1]} {at.day}"
    forms = [(f"on {date}{clock}", f"to {date}{clock}")]
    if days == 1:
        forms.append((f"tomorrow{clock}", f"to tomorrow{clock}"))
    elif 2 <= days <= 6:
        day = _DAYS[at.weekday()]
        forms.append((f"on {day}{clock}", f"to {day}{clock}"))
    return forms[pick % len(forms)]


def gold_when(at: datetime, timed: bool) -> str:
    """The unambiguous date a gold edge carries: "March 20, 2026 at 3pm"."""
    clock = f" at {_clock(at)}" if timed else ""
    return f"{_MONTHS[at.month - 1]} {at.day}, {at.year}{clock}"


@dataclass(frozen=True, slots=True)
class PlanKind:
    """A plan the user may later drop (AV7); `refs` are ways to refer back to it."""

    name: str
    category: Category
    slot: str
    gold: str
    say: tuple[str, ...]
    refs: tuple[str, ...]
    reasons: tuple[str, ...]
    ask: tuple[str, ...]


#: Plans that may be dropped: a dog, an exchange semester, a book, … (`data/events.toml`).
PLAN_KINDS: dict[str, PlanKind] = records(PlanKind, _DATA["plans"])
PLAN_PLACES: dict[str, tuple[str, ...]] = pools(_DATA["plan_places"])
#: Retraction language (docs/architecture.md, "Lifecycle state"), from a later session:
#: names the plan.
DROP: tuple[str, ...] = tuple(_DATA["drops"]["later"])
#: Retraction in the same session, right after the plan: refers back by "it"/"that".
DROP_NOW: tuple[str, ...] = tuple(_DATA["drops"]["same_session"])
