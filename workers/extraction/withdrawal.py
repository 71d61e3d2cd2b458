"""A withdrawal the retraction markers do not know, recognised by the trained probe (issue 11).

`retraction.py` finds the cancelling verbs and verdicts its lists hold; "I've let it go",
"pulled my application" and every other way of giving a plan up are missed, and the plan
stays current (paper §3.3 and A.9: a retraction masks the plan it names; AV7, selective
forgetting). Here a user turn in which the rules found no retraction, that asserts (no
question, hedge or condition anywhere in it: "should I cancel it?" withdraws nothing — the
guards of `clauses.tentative`) and denies no cancelling verb ("we haven't shelved the trip",
"I thought about dropping it": `retraction.denies_withdrawal`; a mean-pooled vector cannot
see negation) and is the user's own (no verb of saying with another subject, no wish, no
plan named as another's: `own_withdrawal.not_the_users`, the gate the markers and the
query-time rule share) yields a candidate retraction (`prototype="withdrawal"`). The
extraction stage keeps it only when the withdrawal probe scores the raw turn's vector — the
one the turn is stored with, embedded once — at least the policy's `withdrawal.threshold`
(`withdrawal_probe.unconfirmed`), and embeds it only then. Its target, in order:

1. the plan of the session's recent turns sharing the most words with the turn's noun
   phrases (`retraction.best_plan`, as a marker's target is resolved) — never a plan the turn
   itself states;
2. a noun phrase named like a plan (`retraction.plan_like`): its slot, which
   `workers/lifecycle/retargeting.py` resolves across sessions (head word + cosine) when the
   user never filled it;
3. no plan-like phrase at all: the session's most recent plan (a pronoun's target).

Deterministic: a function of the turn, its session context and (in the stage) the probe's
fixed weights over the turn's vector.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from workers.extraction import draft as d
from workers.extraction import retraction
from workers.extraction.model import ExtractedFact
from workers.extraction.own_withdrawal import not_the_users
from workers.extraction.own_withdrawal import weighed as weighed
from workers.extraction.slots import categories_for_slot, describe_cancel, guess_slots, is_plan_slot

_MAX_TEXT = 4_900
#: A noun phrase with a possessive or definite determiner: what a speaker names a plan by.
_NP = re.compile(r"\b(?:the|my|our|that|this)\s+[\w'-]+(?:\s+[\w'-]+){0,3}", re.IGNORECASE)
#: Where a noun phrase ends: the first auxiliary, modal, negation, preposition, conjunction
#: or pronoun after its head (closed grammatical classes, no wording of a plan).
_CUT = re.compile(
    r"\s+(?:is|was|are|were|be|been|has|have|had|do|does|did|will|would|can|could|shall"
    r"|should|may|might|must|got|gets|get|just|not|never|no|to|for|with|because|since|and|or"
    r"|but|so|at|in|on|of|it|i|we|you|he|she|they|as|after|before|now|anymore|\w+n['’]t"
    r"|\w+['’](?:s|ll|d|re|ve))\b.*$",
    re.IGNORECASE,
)


def noun_phrases(text: str) -> list[str]:
    """The turn's determiner noun phrases, cut before the first function word."""
    out = []
    for m in _NP.finditer(text):
        phrase = _CUT.sub("", m.group(0)).strip(" ,.;:!?'\"")
        if len(phrase.split()) >= 2:
            out.append(phrase)
    return list(dict.fromkeys(out))


def target(
    text: str, candidates: Sequence[tuple[str, str]], stated: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """The slots a probe-found withdrawal retracts (`candidates`: (slot, text), newest
    first, of the session's recent turns): never a slot in `stated`, the plans the turn
    itself states ("we've abandoned the plan, the wedding is on June 6" keeps the wedding,
    as `rules._restated_topics_kept` keeps a topic the turn restates). Among plans sharing
    words with the turn's noun phrases, the one sharing the most (`retraction.best_plan`)."""
    plans = [(slot, t) for slot, t in candidates if is_plan_slot(slot) and slot not in stated]
    phrases = noun_phrases(text)
    wanted = {w for p in phrases for w in retraction.content_words(p)}
    if best := retraction.best_plan(wanted, plans):
        return (best,)
    for phrase in phrases:
        if (plan_slot := _plan_slot(phrase)) and plan_slot not in stated:
            return (plan_slot,)
    return (plans[0][0],) if plans else ()


@lru_cache(maxsize=4096)
def _plan_slot(phrase: str) -> str | None:
    """The slot of a phrase named like a plan, else None (cached: every user turn without a
    retraction is asked, and everyday phrases recur — "my kids", "the weekend")."""
    return guess_slots(phrase)[0] if retraction.plan_like(phrase) else None


def withdrawal_fact(
    text: str, facts: Sequence[ExtractedFact], context: Sequence[tuple[str, str]]
) -> ExtractedFact | None:
    """The candidate retraction of a turn whose rules found none: kept by the extraction
    stage only if the probe reads the turn's vector as a withdrawal."""
    if any(f.retracts for f in facts) or not_the_users(text):
        return None
    stated = frozenset(f.slot_key for f in facts if f.slot_key)
    slots = target(text, context, stated)
    if not slots:
        return None
    return ExtractedFact(
        text=f'{describe_cancel(slots[0])} ("{" ".join(text.split())}")'[:_MAX_TEXT],
        categories=dict(categories_for_slot(slots[0])),
        confidence=d.COMMITTED,
        update=d.A,
        retracts=slots,
        prototype="withdrawal",
    )
