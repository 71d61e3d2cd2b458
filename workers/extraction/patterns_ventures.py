"""Plans named by a noun rather than a verb: "drew up plans for a cabin", "got quotes for a
new kitchen", "saving up for a big New Zealand trip", "we want to do Iceland next summer".

They matter because a plan the extractor misses cannot be retracted (AV7): "the kitchen
reno is dead" three sessions later finds nothing in the conversation context and falls back
to the slot its noun phrase would get (`slots.guess_slots`). So every plan here is keyed by
the same functions — `project_slot` (the plan's topic: "the kitchen renovation" and "the new
kitchen" → project.kitchen), `event_slot` / `trip_slot` for trips.
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
#: Steps one takes toward a plan; what follows names the plan.
_TOWARD = re.compile(
    r"\b(?:planning|(?:drew|drawing|draw)\s+up\s+plans\s+for|plans\s+for|(?:got|getting|get"
    r"|asked\s+for)\s+(?:some\s+)?quotes?\s+for|saving\s+(?:up\s+)?for|putting\s+money\s+aside\s+for"
    r"|shortlisted|short-listed|(?:asked\s+[\w' ]+?\s+for\s+)?(?:a\s+)?reference\s+for"
    r"|picked\s+(?:out\s+)?[\w-]+\s+for|(?:started|starting|made|making)\s+(?:an?\s+)?"
    r"itinerary\s+for|itinerary\s+for|redoing|redo|(?:want|wanna|hoping|planning|going)\s+to"
    r"\s+do|go\s+back\s+to\s+(?:uni|university|school|college)\s+for|researching|budgeting\s+for"
    r"|mood\s+board\s+for|(?:my|our)\s+(?:summer|winter|spring|autumn|next|big|weekend|side)\s+"
    r"project\s*:|(?:my|our)\s+next\s+big\s+thing\s*:"
    r"|(?:my|our)\s+side\s+(?:hustle|business|gig|venture)(?:\s+(?:plan|idea))?\s*(?::|is|will\s+be)"
    r"|(?:my|our)\s+(?:big\s+)?plan\s+(?:is|for\s+next\s+year\s+is)(?:\s+to\s+do)?)\s+"
    + _DET
    + _OBJ,
    _I,
)
#: "The kitchen renovation starts soon", "our cabin build kicks off in May".
_STARTS = re.compile(
    r"\b(?P<obj>(?:the|my|our)\s+[\w' -]{1,30}?)\s+(?:starts|begins|kicks\s+off|is\s+starting"
    r"|is\s+going\s+ahead|is\s+on\s+track|gets\s+going)\b",
    _I,
)
_NOT_TOPICS = frozenset({"it", "that", "this", "them", "something", "one", "money", "now"})


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in (*_TOWARD.finditer(text), *_STARTS.finditer(text)):
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
        slot, cats = trip_slot(obj), d.TRIP  # "do Iceland next summer": a destination
    else:
        return None
    return d.from_match("plan.named", slot, "planned", m, cats, d.R, d.STATED, 16)
