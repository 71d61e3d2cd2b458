"""An undated candidate whose own words date it in the past is not upcoming (issue 11).

The A.7.4 event-time kernel and the expiry that follows it (an event past its time plus the
expiry buffer is expired, and the upcoming mask admits active facts only) can only judge a
fact that carries an event time. A turn that yielded no dated fact — "the municipality sends
the hygiene inspector on February 20", told in January of the year before — is stored as an
undated raw turn, and "do I have any upcoming appointments?" may serve it: nothing says it
has passed. Its words do: the date it names, read from the moment it was told (the same
resolver the extractor uses, `workers/extraction/dates.py`, which depends on no phrasing
family — a date is a date however the sentence around it runs).

So, for an upcoming question only, each undated candidate among the first `window` whose
text names a date that, resolved against its own ingest time (the nearest occurrence ahead,
as an upcoming event is read at ingest), lies more than the expiry buffer before `as_of` is
judged as an expiry would judge it: it ranks from `demote_to` on, inside the window (the
same bounded move as `latest_value.reorder`), with the date in `why`. A candidate with no
date in its words is never told as past (no words say so), and a dated fact is left to the
kernel.

With `told_with`, an undated fact drawn from such a turn follows it: the extractor kept "User
booked the passport appointment" and dropped the date its turn names ("8 July, 10:40"), so
the fact is the appointment the turn dates. A fact with its own event time is still left to
the kernel; gold metadata has no raw turns, so there it never acts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from schemas.categories import Intent
from schemas.records import FactRecord
from workers.extraction.date_roles import pending_date
from workers.extraction.foreign_days import in_english
from workers.extraction.stage import raw_edge_id_of


@dataclass(frozen=True, slots=True)
class Passed:
    """A candidate whose words name `words`, meaning `when`: past by `as_of`."""

    words: str
    when: datetime
    #: The words are those of the raw turn the candidate was drawn from (`told_with`).
    in_its_turn: bool = False


def passed(
    intent: Intent,
    window: Sequence[FactRecord],
    as_of: datetime,
    buffer_hours: float,
) -> dict[str, Passed]:
    """Edge id → the past date its words name, for the undated candidates of `window`."""
    if intent is not Intent.UPCOMING:
        return {}
    cutoff = as_of - timedelta(hours=buffer_hours)
    out: dict[str, Passed] = {}
    for record in window:
        edge = record.edge
        if edge.event_time is not None:
            continue  # the event-time kernel and expiry judge it
        # The first date that names a pending event (`date_roles.pending_date`): "we moved
        # in Saturday! the housewarming is on April 5" is the party, not the move (review
        # r17 M1), as the ingest reads such a turn.
        mention = pending_date(in_english(edge.text), edge.ingest_time)
        if mention is not None and mention.when < cutoff:
            out[record.edge_id] = Passed(mention.text, mention.when)
    return out


def turns_wanted(window: Sequence[FactRecord]) -> list[str]:
    """The raw turns `told_in_passed` reads: those of the window's undated facts."""
    ids = {
        raw_edge_id_of(r.edge_id)
        for r in window
        if not r.edge.episodic and r.edge.event_time is None
    }
    return sorted(i for i in ids if i is not None)


def told_in_passed(
    intent: Intent,
    window: Sequence[FactRecord],
    turns: dict[str, FactRecord],
    as_of: datetime,
    buffer_hours: float,
) -> dict[str, Passed]:
    """Edge id → the past date its raw turn's words name, for the undated facts of `window`
    drawn from a turn of `turns` (raw-turn id → record) that `passed` would judge past."""
    if intent is not Intent.UPCOMING:
        return {}
    dated = passed(intent, list(turns.values()), as_of, buffer_hours)
    cutoff = as_of - timedelta(hours=buffer_hours)
    for raw_id, raw in turns.items():
        when = raw.edge.event_time
        if raw_id not in dated and when is not None and when < cutoff:
            # A turn the kernel expired (its own event time, past by the buffer): its
            # undated facts are the event it dated, past as well.
            dated[raw_id] = Passed(when.date().isoformat(), when)
    out: dict[str, Passed] = {}
    for record in window:
        edge = record.edge
        turn_id = raw_edge_id_of(record.edge_id)
        if edge.episodic or edge.event_time is not None or turn_id is None:
            continue
        turn = turns.get(turn_id)
        if turn is not None and record.edge_id in turn.edge.episodic_of and turn_id in dated:
            out[record.edge_id] = replace(dated[turn_id], in_its_turn=True)
    return out


def explain(p: Passed) -> str:
    whose = "the words of the turn it was drawn from" if p.in_its_turn else "its words"
    return f'{whose} date it in the past ("{p.words}": {p.when.date().isoformat()}): not upcoming'
