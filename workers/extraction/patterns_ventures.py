"""Plans named by a noun that no general mechanism joins to their withdrawal: a side venture
("my side hustle plan: a food truck" … "the business idea is off the table"), "my plan is a
semester abroad in Copenhagen" … "the exchange is off", "I want to go back to uni for a
master's" … "no more master's plans" (AV7).

Most plans named by a noun need no pattern ("drew up plans for a cabin", "saving up for a
Morocco trip", "the kitchen renovation starts soon"): their raw turn is kept, and a later
withdrawal in other words ("the cabin plan is dead") is joined to it by retraction
retargeting (workers/lifecycle/retargeting.py), which needs a word in common and a cosine ≥
`association.retraction_cosine`. These three phrasings have neither: the withdrawal names
the plan by a synonym `slots.plan_topic` knows (side hustle → business, semester abroad →
exchange), or the cosine of the two MiniLM vectors is under the floor (master's: 0.24 <
0.25). So the plan is keyed here, under the slot its withdrawal will guess (`project_slot`,
`trip_slot`). Behaviour: tests/unit/test_plan_withdrawal.py (its `KEYED_HERE` rows fail
without this module).
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.lexicon import HOBBIES
from workers.extraction.patterns_plans import PROJECT_HEADS
from workers.extraction.slots import event_slot, plan_topic, project_slot, trip_slot

_I = re.IGNORECASE
_DET = r"(?:(?:a|an|my|our|the|this|that|some|another|three|two|a\s+few)\s+)?"
_OBJ = r"(?P<obj>[^\s,.;!?:][^,.;!?:]*)"
#: What announces the plan; what follows names it.
_TOWARD = re.compile(
    r"\b(?:go\s+back\s+to\s+(?:uni|university|school|college)\s+for"
    r"|(?:my|our)\s+side\s+(?:hustle|business|gig|venture)(?:\s+(?:plan|idea))?\s*(?::|is|will\s+be)"
    r"|(?:my|our)\s+(?:big\s+)?plan\s+(?:is|for\s+next\s+year\s+is)(?:\s+to\s+do)?)\s+"
    + _DET
    + _OBJ,
    _I,
)
_NOT_TOPICS = frozenset({"it", "that", "this", "them", "something", "one", "money", "now"})


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _TOWARD.finditer(text):
        named = m.group(0).lower().startswith(("my ", "our ", "the "))
        if not named and not subject_is_user(text, m.start()):
            continue
        draft = _plan(m)
        if draft is not None:
            out.append(draft)
    return out


def _plan(m: re.Match[str]) -> Draft | None:
    obj = re.split(r"\s+(?:next|this|last|in\s+\d|soon|someday|one\s+day|at\s+weekends)\b",
                   m["obj"], maxsplit=1)[0].strip()  # fmt: skip
    topic = plan_topic(obj)
    if not topic or topic in _NOT_TOPICS or obj.lower() in HOBBIES:
        return None
    found = event_slot(obj)
    if found is not None and found[0].startswith("trip."):
        slot, cats = found
    elif found is not None:
        return None  # appointments and events have their own family
    elif topic in PROJECT_HEADS or topic.rstrip("s") in PROJECT_HEADS:
        slot, cats = project_slot(obj), d.PROJECT
    elif re.match(r"(?-i:[A-Z])", obj) and len(obj.split()) <= 3:
        slot, cats = trip_slot(obj), d.TRIP  # "our plan is to do Iceland": a destination
    else:
        return None
    return d.from_match("plan.named", slot, "planned", m, cats, d.R, d.STATED, 16)
