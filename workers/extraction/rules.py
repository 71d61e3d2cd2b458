"""The offline rule extractor: a user turn → classified facts with lifecycle metadata.

The default extractor when no LLM is configured (docs/architecture.md, "Ports and
adapters"). It does what the paper's ingestion call does (§3, Figure 1) with English
patterns instead of a model: split the turn into clauses (§3.2: classify the fact, not the
utterance), let each pattern family propose facts, then make the lifecycle decisions in one
place (here and in `finishing.py`) —

* hedges ("thinking about", "maybe", "not decided yet") → `soft` at confidence 0.4, so
  "thinking about moving to London" keeps Istanbul current (Appendix F);
* event times resolved against the turn timestamp (§3.3, Appendix K);
* retractions linked to the plan they cancel, using the turn and its context (paper §3.3);
* instruction-like content quarantined (B.5), world knowledge and questions dropped (D.5);
* emotional loading attached to the fact it modifies, never a fact of its own (B.6).

Slot-key consistency between a fact and its later update is the property everything else
depends on: families derive keys through shared functions (`slots`, lexicons).

This module scans a turn (sentences, clauses, the families, the overlap settlement) and links
the finished facts across the turn and its session (retraction targets, "my flight"-style
references); turning one kept draft into a fact — hedging, event time, text — is
`finishing.py`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from schemas.events import TurnEvent
from workers.extraction import draft as d
from workers.extraction import (
    patterns_calendar,
    patterns_changes,
    patterns_events,
    patterns_habits,
    patterns_home,
    patterns_identity,
    patterns_identity_passing,
    patterns_languages,
    patterns_leisure,
    patterns_money,
    patterns_passing,
    patterns_pastimes,
    patterns_pets,
    patterns_plans,
    patterns_prefs,
    patterns_rates,
    patterns_routines,
    patterns_social,
    patterns_takeups,
    patterns_values,
    patterns_vehicle,
    patterns_ventures,
    patterns_wellbeing,
    patterns_work,
    retraction,
)
from workers.extraction.assembly import merge, revalidated, segments, spread_emotion
from workers.extraction.clauses import (
    PURE_HEDGE,
    Clause,
    clauses,
    hedged,
    negated,
    sentences,
)
from workers.extraction.draft import Draft
from workers.extraction.finishing import MAX_TEXT, Found, finish
from workers.extraction.model import ExtractedFact
from workers.extraction.patterns_guard import (
    emotional_loading,
    is_instruction,
    is_world_knowledge,
    statement_part,
)
from workers.extraction.phrasing import third_person
from workers.extraction.slots import categories_for_slot, describe_cancel
from workers.extraction.withdrawal import withdrawal_fact
from workers.text.acronyms import expanded, long_forms
from workers.text.register import canonical

logger = logging.getLogger(__name__)

#: Pattern families, each `Clause -> list[Draft]`. Overlaps are settled by draft priority.
FAMILIES: tuple[Callable[[Clause], list[Draft]], ...] = (
    retraction.find,
    patterns_languages.find,
    patterns_habits.find,
    patterns_money.find,
    patterns_vehicle.find,
    patterns_events.find,
    patterns_wellbeing.find,
    patterns_leisure.find,
    patterns_prefs.find,
    patterns_routines.find,
    patterns_rates.find,
    patterns_social.find,
    patterns_pets.find,  # was the tail of patterns_social.find: keep it right after
    patterns_identity.find,
    patterns_identity_passing.find,
    patterns_home.find,
    patterns_work.find,
    patterns_plans.find,
    patterns_ventures.find,
    patterns_calendar.find,
    patterns_passing.find,
    patterns_values.find,
    patterns_changes.find,
)
#: "used to", "back when": a habit or state that held before (also read by the query-time
#: rule `workers/query/newer_statements.py`: such a turn says nothing of the present).
USED_TO = re.compile(r"\bused\s+to\b|\bback\s+when\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Fact:
    """A finished fact before retraction targets and context slots are settled."""

    found: Found
    fact: ExtractedFact


class RuleExtractor:
    """English rules for every behavioral category: deterministic, no I/O, no shared state
    beyond a pure cache, so one instance may serve several threads.

    `extract(turn, context)`: `context` is the recent turns of the same session, oldest
    first; it is used only to resolve references ("scrap it", "my flight got moved").
    Assistant turns yield nothing: memory is what the user said.
    """

    def __init__(
        self,
        context_turns: int = 20,
        withdrawal: bool = False,
        normalize: bool = False,
        pastimes: bool = False,
        pastime_habits: bool = False,
        takeups: bool = False,
    ) -> None:
        """`withdrawal`: also yield the candidate retraction the trained probe confirms or
        drops in the extraction stage (`withdrawal.py`); without it only the markers retract.
        `normalize`: the families read each turn (and its context) in canonical prose
        (`workers/text/register.py`: fillers, texting, markdown); the raw turn is unchanged.
        `pastimes`: a habitual activity no other family reads is a Hobbies fact
        (`patterns_pastimes`, policy `pastimes.enabled`); `pastime_habits`: so is a value
        family's habit that names no attribute (policy `pastimes.habits`); `takeups`: so is
        a pastime told as taken up — joined, took up, started … (`patterns_takeups`, policy
        `pastimes.takeups`)."""
        self._pastimes = pastimes
        self._habits = pastime_habits
        self._takeups = takeups
        self._context_turns = context_turns
        self._withdrawal = withdrawal
        self._read: Callable[[str], str] = canonical if normalize else str

    def extract(self, turn: TurnEvent, context: Sequence[TurnEvent] = ()) -> list[ExtractedFact]:
        if turn.role != "user" or not turn.text.strip():
            return []
        facts = self._read_turn(turn, context, self._takeups)
        if self._pastimes:
            kept = patterns_pastimes.only_in_factless_turns(facts)
            if self._takeups and len(kept) < len(facts):
                # A take-up read in a turn that says something else is no pastime of its own
                # (the guard drops it); the clause is read as it was before the family, so the
                # take-up costs the turn none of the value families' readings.
                kept = patterns_pastimes.only_in_factless_turns(
                    self._read_turn(turn, context, False)
                )
            facts = kept
        return merge(_with_long_forms(facts, turn.text))

    def _read_turn(
        self, turn: TurnEvent, context: Sequence[TurnEvent], takeups: bool
    ) -> list[ExtractedFact]:
        """The turn's facts, before the pastime guard."""
        quarantined, found = _scan_once(
            self._read(turn.text), self._pastimes, self._habits, takeups
        )
        facts: list[ExtractedFact] = []
        if quarantined:
            facts.append(_quarantine(list(quarantined)))
        pending = [_Fact(f, fact) for f in found if (fact := finish(f, turn.timestamp))]
        earlier = [t for t in context if t.turn_id != turn.turn_id]
        # `[-0:]` is the whole list: context_turns=0 means no context (review r16, L1).
        recent = earlier[-self._context_turns :] if self._context_turns > 0 else []
        session = _Context(recent, self._read)
        facts.extend(_link(pending, session))
        if self._withdrawal and (candidate := withdrawal_fact(turn.text, facts, session.pairs())):
            facts.append(candidate)
        return facts


def _with_long_forms(facts: list[ExtractedFact], text: str) -> list[ExtractedFact]:
    """Facts that name an acronym the turn spells out carry the long form, so that the
    prototype classifier reads what it stands for ("moved to the UCC" → a church)."""
    forms = long_forms(text)
    if not forms:
        return facts
    return [
        f
        if f.quarantined
        else revalidated(
            f,
            text=expanded(f.text, forms)[:MAX_TEXT],
            value=expanded(f.value, forms) if f.value else f.value,
        )
        for f in facts
    ]


@lru_cache(maxsize=4096)
def _scan_once(
    text: str, pastimes: bool = False, habits: bool = False, takeups: bool = False
) -> tuple[tuple[str, ...], tuple[Found, ...]]:
    """`_scan`, once per text: a turn's extraction and its reading as context later
    (`_plain_slots`, which the withdrawal candidate asks of every turn) share it."""
    quarantined, found = _scan(text, pastimes, habits, takeups)
    return tuple(quarantined), tuple(found)


def _scan(
    text: str, pastimes: bool = False, habits: bool = False, takeups: bool = False
) -> tuple[list[str], list[Found]]:
    quarantined: list[str] = []
    per_sentence: list[tuple[str, list[tuple[Draft, Clause]], float]] = []
    soft_before: int | None = None
    clause_index = 0
    topic: str | None = None  # "About the cabin. Scrap it.": the pronoun is the cabin
    for index, sentence in enumerate(sentences(text)):
        framed, topic = topic, retraction.fragment_topic(sentence)
        if is_instruction(sentence):
            quarantined.append(sentence)
            continue
        if PURE_HEDGE.match(sentence):
            soft_before = len(per_sentence)  # "… not decided yet": what came before is soft
            continue
        stated = statement_part(sentence)
        if stated is None or is_world_knowledge(stated):
            continue
        sentence = stated
        drafts: list[tuple[Draft, Clause]] = []
        for clause in clauses(sentence, index, clause_index):
            clause_index += 1
            drafts.extend(
                (retraction.with_topic(dr, framed), clause)
                for dr in _clause_drafts(clause, pastimes, habits, takeups)
            )
        per_sentence.append((sentence, drafts, emotional_loading(sentence)))
    emotions = spread_emotion([(bool(dr), e) for _, dr, e in per_sentence])
    found: list[Found] = []
    for i, (sentence, drafts, _) in enumerate(per_sentence):
        soft = soft_before is not None and i < soft_before
        by_clause: dict[int, list[Draft]] = {}
        clause_of: dict[int, Clause] = {}
        for dr, clause in drafts:
            by_clause.setdefault(clause.index, []).append(dr)
            clause_of[clause.index] = clause
        for index, group in by_clause.items():
            clause = clause_of[index]
            parts = segments(clause.text, [dr.span for dr in group])
            found.extend(
                Found(dr, clause, sentence, len(drafts),
                      soft or hedged(patterns_identity_passing.hedge_scope(dr, clause.text)),
                      emotions[i], segment)
                for dr, segment in zip(group, parts, strict=True)
            )  # fmt: skip
    return quarantined, found


def _clause_drafts(
    clause: Clause, pastimes: bool = False, habits: bool = False, takeups: bool = False
) -> list[Draft]:
    drafts: list[Draft] = []
    for family in FAMILIES:
        drafts.extend(family(clause))
    if pastimes and habits:
        drafts = patterns_pastimes.with_habits_as_pastimes(drafts, clause)
    if pastimes:  # last, at the lowest priority: any other reading of the clause wins
        drafts.extend(patterns_pastimes.find(clause))
    if pastimes and takeups:  # before the value families, which read it as a bare start
        drafts.extend(patterns_takeups.find(clause))
    kept: list[Draft] = []
    for dr in sorted(drafts, key=lambda x: (x.priority, x.span)):
        start, end = dr.span
        if not dr.negatable and (
            negated(clause.text, start, end) or USED_TO.search(clause.text[:end])
        ):
            continue
        if any(start < k.span[1] and k.span[0] < end for k in kept):
            continue  # one reading per stretch of text: the more specific family wins
        if dr.slot_key is not None and any(k.slot_key == dr.slot_key for k in kept):
            continue
        kept.append(dr)
    return sorted(kept, key=lambda x: x.span)


class _Context:
    """(slot, text) of the context turns, newest first, computed only if a fact needs it."""

    def __init__(self, turns: Sequence[TurnEvent], read: Callable[[str], str] = str) -> None:
        self._turns = turns
        self._read = read
        self._pairs: list[tuple[str, str]] | None = None

    def pairs(self) -> list[tuple[str, str]]:
        if self._pairs is None:
            self._pairs = [
                pair
                for turn in reversed(self._turns)
                if turn.role == "user"
                for pair in reversed(_plain_slots(self._read(turn.text)))
            ]
        return self._pairs


def _link(pending: list[_Fact], context: _Context) -> list[ExtractedFact]:
    """Resolve retraction targets and "my flight"-style references, newest mention first."""
    seen: list[tuple[str, str]] = []  # (slot, text) of this turn so far, oldest first
    out: list[ExtractedFact] = []
    last_retracted: tuple[str, ...] = ()
    topical: list[bool] = []  # per fact of `out`: a retraction read through a topic
    for p in pending:
        dr, fact = p.found.draft, p.fact
        needs_context = dr.kind == "retraction" or (dr.needs_context and fact.slot_key)
        candidates = [*reversed(seen), *context.pairs()] if needs_context else []
        if dr.kind == "retraction":
            if last_retracted and retraction.is_pronoun(dr.target or ""):
                targets = last_retracted  # "the ubc thing is dead … scrapping it"
            else:
                targets = retraction.resolve(dr.target or "", candidates, dr.topical)
            if not targets:
                logger.debug("retraction without a target: %r", p.found.clause.text)
                continue
            clause = p.found.clause.text
            fact = revalidated(
                fact,
                retracts=targets,
                categories=dict(categories_for_slot(targets[0])),
                text=f'{describe_cancel(targets[0])} ("{clause}")'[:MAX_TEXT],
            )
            seen.extend((t, fact.text) for t in targets)
            last_retracted = targets
        elif dr.needs_context and fact.slot_key:
            family = fact.slot_key.split(".", 1)[0] + "."
            match = next((s for s, _ in candidates if s.startswith(family)), None)
            if match is not None:
                fact = revalidated(fact, slot_key=match)
        if fact.slot_key:
            seen.append((fact.slot_key, fact.text))
            last_retracted = ()
        out.append(fact)
        topical.append(dr.topical)
    return _restated_topics_kept(out, topical)


def _restated_topics_kept(facts: list[ExtractedFact], topical: list[bool]) -> list[ExtractedFact]:
    """Without the topic retractions whose slot the same turn states: "The exam, forget it,
    I'm going to fail" judges a plan that stands (the turn restates it), it withdraws none."""
    stated = {f.slot_key for f in facts if f.slot_key and not f.retracts}
    return [
        f for f, t in zip(facts, topical, strict=True)
        if not (t and f.retracts and stated & set(f.retracts))
    ]  # fmt: skip


@lru_cache(maxsize=4096)
def _plain_slots(text: str) -> tuple[tuple[str, str], ...]:
    """(slot, text) of a context turn: no event times, no context of its own (cached)."""
    _, found = _scan_once(text)
    return tuple(
        (f.draft.slot_key, third_person(f.segment))
        for f in found
        if f.draft.slot_key and f.draft.kind != "retraction"
    )


def _quarantine(sentences_: list[str]) -> ExtractedFact:
    content = " ".join(sentences_)
    return ExtractedFact(
        text=f"Quarantined instruction-like content: {content}"[:MAX_TEXT],
        categories=dict(d.OTHER),
        confidence=1.0,
        update=d.A,
        quarantined=True,
    )
