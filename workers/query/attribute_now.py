"""A question about a single-valued attribute asks which value holds now (issue 11, AV4).

`newer_statements.asks_current_value` reads the question's words: a present-time word ("now",
"these days"), or a simple-present do-question about the asker. "Which town is my house in?",
"what's my position with the club?" or "which firm does she practise at?" say neither, yet
the attribute they ask about holds one value at a time (a fixed slot: one city, one employer,
one role — `latest_value.single_valued`), so a present-tense question about it can only ask
for the value that holds now: for q_cur the newest statement of the (subject, attribute) key
leads (A.7.3, Eq. 37-39; Appendix F's soft supersession reads the same key). The window
rules that order versions for a question about now (the demoted block newest first and the
older of a pair last, the chain through a replaced statement, the marked pairs' brackets, the
marked presser lifted from past the window) then read it too.

The reading is the attribute classifier's (the one `latest_value` already asks of every
current question), not the wording: a question is read so only where the classifier puts it
near a single-valued attribute (`latest_value.asked_attributes`), the intent is CURRENT (a past
or historical question is never one), the question does not name its own moment on the
calendar (then it asks what held that day) and has no continuity word ("does she still work
there?" names the earlier state and asks whether it lasted — the older value is the answer's
evidence).
"""

from __future__ import annotations

import re

from schemas.categories import Intent
from workers.query import newer_statements

#: The words that ask whether an earlier state lasted (`newer_statements` reads them so too).
_CONTINUITY = re.compile(r"\b(?:still|any ?more)\b", re.I)
#: A question that asks for a value opens with a wh-word for one (what, which, where, who, a
#: quantity's "how much / many / old / far / long / often"), or asks whether one holds,
#: opening with a present copula ("is she …?").
_QUANTITY = r"how\s+(?:much|many|old|far|long|often)\b"
_ASKS_A_VALUE = re.compile(rf"^\W*(?:(?:what|which|where|who|is|are|am)\b|{_QUANTITY})", re.I)
#: ... in the present, with a copula ("what's", "which city is", "is she …"), not a past or
#: perfect verb ("who invited", "where has she lived") ...
_PRESENT = re.compile(r"\b(?:is|are|am)\b|^\W*\w+'s\b", re.I)
#: ... and the copula is the question's verb: what the attribute *is*, not what someone does
#: ("what does he find …", "which flavours does she enjoy"), an activity in progress ("what
#: is he teaming up with"), or a state towards another verb ("which city is he excited to
#: play in") — a do-question about the asker is `asks_current_value`'s own (`present_habit`).
_OTHER_VERB = re.compile(r"\b(?:does|do|did)\b|\b\w{3,}ing\b|\bto\s+\w+", re.I)
#: ... and does not ask for a reason or a manner, nor what would, might or will be (a
#: supposition or a plan is no value that holds): "why", "how" (but a quantity's), a modal.
_NOT_A_VALUE = re.compile(
    r"\b(?:why|how(?!\s+(?:much|many|old|far|long|often)\b)|would|might|could|should|will"
    r"|shall|may|likely|probably)\b",
    re.I,
)


def asks_value_now(
    question: str, intent: Intent, attribute_asked: bool, present_habit: bool, enabled: bool
) -> bool:
    """Whether the question asks which value holds now: its words say so
    (`newer_statements.asks_current_value`), or — with `enabled` — it is a current question
    the attribute classifier reads as asking a single-valued attribute (`attribute_asked`),
    asked for one value (`asks_for_a_value`), that neither dates itself nor asks whether an
    earlier state lasted."""
    if newer_statements.asks_current_value(question, present_habit):
        return True
    return (
        enabled
        and attribute_asked
        and intent is Intent.CURRENT
        and asks_for_a_value(question)
        and not newer_statements.names_its_moment(question)
        and _CONTINUITY.search(question) is None
    )


def asks_for_a_value(question: str) -> bool:
    """Whether the question's grammar asks for one value: a wh-question for a thing, place or
    person (what, which, where, who) with a present copula as its verb, or whether one holds
    ("is she …?"), not what someone does, an activity in progress or a state towards another
    verb, nor for a reason, a manner, a supposition or a plan
    (why, how, a modal), nor for a set (`newer_statements.asks_for_many`)."""
    return (
        _ASKS_A_VALUE.search(question) is not None
        and _PRESENT.search(question) is not None
        and _OTHER_VERB.search(question) is None
        and _NOT_A_VALUE.search(question) is None
        and not newer_statements.asks_for_many(question)
    )
