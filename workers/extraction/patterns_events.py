"""Obligations and Logistical Context: dated things that expire (Table 1 rows 9–10).

Appointments, deadlines and exams are obligations (anticipatory: they matter more as they
approach); flights, trips, deliveries, reservations and same-day meetings are logistics
(fastest decay, expire at their event time). Every slot comes from `slots.event_slot`, the
function that also names a rescheduled or cancelled thing, so "my flight got moved to
Friday" lands in the slot of "flight to Tokyo at 6am tomorrow" (Appendix F).
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, head_noun, slug, subject_is_user, trim_phrase
from workers.extraction.dates import has_date_cue
from workers.extraction.draft import Draft
from workers.extraction.lexicon import NOT_PLACES, words
from workers.extraction.slots import (
    APPOINTMENT_KIND_RE,
    EVENT_NOUN_RE,
    event_slot,
    flight_slot,
    trip_slot,
)

_I = re.IGNORECASE
_PRE = r"(?P<pre>(?:[\w'.-]+\s+){0,2}?)"
_TAIL = r"(?P<tail>\s+(?:to|with|for|at|in|into)\s+[^,.;!?]+)?"
_CAP_PLACE = r"(?-i:(?P<dest>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))"
_NOT_QUALIFIERS = frozenset(
    words(
        "my the our a an early late morning evening night connecting next return red-eye redeye "
        "overnight cheap booked have got take catch is on this that first last long short your "
        "upcoming big annual weekly monthly new scheduled"
    )
)

_FLIGHT = re.compile(
    rf"\b{_PRE}flight\b(?:\s+(?:back\s+)?(?:(?P<home>home)|(?:to|for|into)\s+(?P<dest>[^,.;!?]+)))?",
    _I,
)
_FLY = re.compile(
    r"\b(?:flying|fly|flies)\s+(?:out\s+|back\s+)?(?:(?P<home>home)|(?:to|into)\s+"
    r"(?P<dest>[^,.;!?]+))",
    _I,
)
_RESCHEDULED = re.compile(
    rf"\b(?P<thing>(?:my|the|our|his|her)\s+(?:[\w'-]+\s+){{0,3}}?(?:{EVENT_NOUN_RE}"
    rf"|{APPOINTMENT_KIND_RE})s?(?:\s+(?:to|with|for|at)\s+[\w' -]+?)?)\s+"
    r"(?:(?:got|was|has\s+been|is|'s|have\s+been|were|is\s+being|just\s+got|been)\s+)?"
    r"(?:(?P<verb>moved|rescheduled|pushed|bumped|postponed|delayed|changed|brought\s+forward"
    r"|moved\s+up|moved\s+back|shifted|pushed\s+back|now)(?:\s+(?:back|up|forward))?"
    r"(?:\s+(?:to|until|till|for|on|at)\s+(?P<when>[^,.;!?]+))?|is\s+now\s+(?:on\s+|at\s+)?"
    r"(?P<when2>[^,.;!?]+))"
    rf"|\b(?:moved|rescheduled|pushed|postponed|bumped|changed|shifted)\s+(?P<thing2>(?:my|the"
    rf"|our)\s+(?:[\w'-]+\s+){{0,3}}?(?:{EVENT_NOUN_RE}|{APPOINTMENT_KIND_RE})s?)\s+(?:back\s+)?"
    r"(?:to|until|till|for)\s+(?P<when3>[^,.;!?]+)",
    _I,
)
_APPOINTMENT = re.compile(
    rf"\b{_PRE}(?P<noun>appointment|appt|check-?up|consultation|session|surgery|operation"
    rf"|procedure|inspection|hearing|interview)s?\b{_TAIL}",
    _I,
)
_SEE_PRO = re.compile(
    rf"\b(?:seeing|see|going\s+to|visit(?:ing)?|at)\s+(?:the|my|a)\s+(?P<kind>{APPOINTMENT_KIND_RE})"
    r"(?:'s)?\b",
    _I,
)
_DUE = re.compile(
    r"\b(?P<thing>(?:my|the|our|this)\s+[\w' -]{1,40}?)\s+(?:is|are|'s|was|will\s+be)\s+"
    r"(?:due|due\s+on|due\s+by)\b"
    r"|\b(?P<thing2>[\w'-]+(?:\s+[\w'-]+)?)\s+deadline\b"
    r"|\bdeadline\s+(?:for|on)\s+(?:the\s+|my\s+|our\s+)?(?P<thing3>[\w' -]+?)\s+(?:is|'s)\b"
    r"|\b(?:have\s+to|need\s+to|must|gotta|got\s+to|has\s+to)\s+(?:submit|finish|hand\s+in"
    r"|turn\s+in|send\s+in|send|file|deliver|complete|pay|renew|return)\s+(?:my\s+|the\s+|our"
    r"\s+|a\s+)?(?P<thing4>[\w' -]+?)\s+(?:by|before|until)\b",
    _I,
)
_EXAM = re.compile(
    rf"\b{_PRE}(?P<noun>exam|exams|final|finals|midterm|midterms|test|quiz|boards|defen[cs]e"
    r"|viva)\b(?!\s+(?:of|game|match|round|series)\b)",  # "the final of a tournament"
    _I,
)
_MEETING = re.compile(
    rf"\b{_PRE}(?P<noun>meeting|standup|stand-up|1:1|one-on-one|presentation|conference"
    rf"|workshop|seminar|webinar)\b(?P<tail>\s+with\s+[^,.;!?]+)?|\ba\s+(?P<call>call)\s+"
    r"with\s+(?P<with>[^,.;!?]+)",
    _I,
)
_DELIVERY = re.compile(
    r"\b(?P<thing>(?:my|the|our)\s+(?:new\s+)?[\w' -]{1,25}?)\s+(?:is|are|'s|will\s+be|should"
    r"\s+be|gets?|is\s+getting)\s+(?:being\s+)?(?:delivered|shipped|arriving\s+(?:by\s+(?:mail"
    r"|post)|on|tomorrow|today))"
    rf"|\b{_PRE}(?P<noun>delivery|package|parcel)\b",
    _I,
)
_TRIP = re.compile(
    rf"\b{_PRE}(?P<noun>trip|vacation|holiday|getaway|honeymoon|road\s+trip)\b"
    r"(?:\s+(?:to|in)\s+(?P<dest>[^,.;!?]+))?",
    _I,
)
_GOING = re.compile(
    rf"\b(?:going|heading|travel(?:l)?ing|off|driving|visiting|going\s+back)\s+(?:to\s+)?{_CAP_PLACE}",
    _I,
)
_BACK_FROM = re.compile(
    r"\b(?:got\s+back|just\s+got\s+back|returned|came\s+back|back\s+home)\s+from\s+"
    r"(?P<dest>[^,.;!?]+)",
    _I,
)
_PLANNING = re.compile(
    r"\b(?:plan|planning|planned|book|booked|booking|going|taking|heading|upcoming|leave|leaving"
    r"|organi[sz]ing|next|soon|can't\s+wait)\b",
    _I,
)
_SOCIAL = re.compile(
    rf"\b{_PRE}(?P<noun>wedding\s+(?:ceremony|reception)|birthday\s+party|dinner\s+party"
    r"|wedding|party|concert|recital|graduation|ceremony|dinner\s+reservation"
    r"|reservation|booking|class|lesson|survey|shift|rehearsal|audition|orientation"
    r"|tournament|race|match|retreat|funeral)\b",
    _I,
)
_NOT_DESTINATIONS = frozenset(
    words(
        "I I'm The A An My Our It This That We He She They You Monday Tuesday Wednesday "
        "Thursday Friday Saturday Sunday January February March April May June July August "
        "September October November December Christmas Easter"
    )
)


def _event(
    kind: str,
    phrase: str,
    m: re.Match[str],
    *,
    confidence: float = d.STATED,
    value: str | None = None,
    priority: int = 10,
    near: bool = False,
    needs_date: bool = False,
) -> Draft | None:
    found = event_slot(phrase)
    if found is None or re.search(r"\byour\b", phrase, _I):
        return None  # "good luck on your exams": the other person's event
    slot, cats = found
    return d.from_match(
        kind,
        slot,
        value,
        m,
        cats,
        d.R,
        confidence,
        priority,
        dates="future",
        needs_context=".next" in slot,
        needs_date=needs_date,
        near_logistics=near,
    )


def _dated(
    kind: str,
    categories: d.Weights,
    slot: str,
    m: re.Match[str],
    *,
    priority: int,
    value: str | None = None,
    confidence: float = d.STATED,
    dates: d.DatePreference = "future",
    needs_context: bool = False,
) -> Draft:
    return d.from_match(
        kind,
        slot,
        value,
        m,
        categories,
        d.R,
        confidence,
        priority,
        dates=dates,
        needs_context=needs_context,
    )


def _last_word(pre: str | None) -> str:
    words = re.findall(r"[\w'-]+", pre or "")
    return words[-1].removesuffix("'s") if words else ""


def _dest(raw: str | None) -> str | None:
    if not raw:
        return None
    dest = trim_phrase(raw, 3)
    if not dest or dest.split()[0] in _NOT_DESTINATIONS:
        return None
    first = dest.split()[0].lower()
    if first in NOT_PLACES and not (first == "the" and dest.split()[-1][:1].isupper()):
        return None  # "a new place", "my mom's": not a destination ("the UK" is)
    return dest


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    dated = has_date_cue(text)
    out: list[Draft] = []
    for m in _RESCHEDULED.finditer(text):
        thing = m["thing"] or m["thing2"]
        when = m["when"] or m["when2"] or m["when3"]
        verb = (m["verb"] or "").lower()
        if verb == "now" and not (when and has_date_cue(when)):
            continue
        if verb == "" and not m["thing2"] and not (m["when2"] and has_date_cue(m["when2"])):
            continue  # "my X is now …" must name a time; "moved my X to Friday" names it
        draft = _event(
            "event.rescheduled",
            thing,
            m,
            confidence=d.COMMITTED,
            value=" ".join(when.split())[:60] if when else verb or None,
            priority=5,
        )
        if draft is not None:
            out.append(draft)
    for m in _FLIGHT.finditer(text):
        pre = (m["pre"] or "").lower()
        if not (dated or re.search(r"\b(?:my|our|booked|got|have|a)\s*$", pre)):
            continue
        dest = "home" if m["home"] else _dest(m["dest"])
        if dest is None:
            q = _last_word(m["pre"])
            dest = q if q and q.lower() not in _NOT_QUALIFIERS else None
        out.append(
            _dated(
                "logistics.flight",
                d.LOGISTICS,
                flight_slot(dest),
                m,
                priority=8,
                needs_context=dest is None,
            )
        )
    for m in _FLY.finditer(text):
        dest = "home" if m["home"] else _dest(m["dest"])
        if dest and subject_is_user(text, m.start()):
            out.append(_dated("logistics.flight", d.LOGISTICS, flight_slot(dest), m, priority=8))
    _scheduled(text, dated, out)
    _travel(text, dated, out)
    return out


def _scheduled(text: str, dated: bool, out: list[Draft]) -> None:
    def add(draft: Draft | None) -> None:
        if draft is not None:
            out.append(draft)

    for m in _APPOINTMENT.finditer(text):
        noun = m["noun"].lower()
        pre = (m["pre"] or "").lower()
        if noun == "session" and not re.search(r"\b(?:therapy|physio|counsel+ing)\b", pre):
            continue
        if noun in {"surgery", "operation", "procedure", "inspection", "hearing"} and not dated:
            continue
        if noun == "interview":
            at = re.match(r"\s+(?:at|with)\s+(.+)", m["tail"] or "", _I)
            key = slug(trim_phrase(at.group(1), 3), max_words=2) if at else ""
            key = key or "next"
            out.append(
                _dated(
                    "obligation.interview",
                    d.OBLIGATION,
                    f"interview.{key}",
                    m,
                    priority=9,
                    needs_context=key == "next",
                )
            )
            continue
        add(_event("obligation.appointment", m.group(0), m, priority=9))
    if dated:
        for m in _SEE_PRO.finditer(text):
            if subject_is_user(text, m.start()):
                add(_event("obligation.appointment", m["kind"], m, priority=9, needs_date=True))
    for m in _DUE.finditer(text):
        thing = m["thing"] or m["thing2"] or m["thing3"] or m["thing4"]
        head = head_noun(thing)
        if not head or (m["thing4"] and not dated):
            continue
        out.append(_dated("obligation.deadline", d.OBLIGATION, f"deadline.{head}", m, priority=9))
    for m in _EXAM.finditer(text):
        noun = m["noun"].lower()
        if noun in {"final", "test", "quiz", "boards"} and not dated:
            continue
        vague = noun in {"final", "finals", "test", "quiz", "boards", "exams"}
        add(_event("obligation.exam", m.group(0), m, priority=9, needs_date=vague))
    for m in _MEETING.finditer(text):
        if not dated and not re.search(r"\b(?:have|got|had|scheduled|booked)\b", text, _I):
            continue  # "I'm in a meeting" states no event to remember
        if re.search(r"\bfor\s+(?:a|an|the)\s*$", m["pre"] or "", _I):
            continue  # "heading to Lisbon for a conference": the trip is the fact
        phrase = f"call with {m['with']}" if m["call"] else m.group(0)
        add(_event("obligation.meeting", phrase, m, priority=9, near=True, needs_date=True))
    for m in _DELIVERY.finditer(text):
        if m["thing"]:
            head = head_noun(m["thing"])
            if head:
                out.append(
                    _dated("logistics.delivery", d.LOGISTICS, f"delivery.{head}", m, priority=9)
                )
        elif dated:
            add(_event("logistics.delivery", m.group(0), m, priority=9, needs_date=True))
    if dated:
        for m in _SOCIAL.finditer(text):
            add(_event("logistics.event", m.group(0), m, priority=11, needs_date=True))


def _travel(text: str, dated: bool, out: list[Draft]) -> None:
    planned = dated or _PLANNING.search(text) is not None
    for m in _TRIP.finditer(text):
        if not planned:
            continue  # "a picture from a vacation in Florida" is a memory, not a plan
        dest = _dest(m["dest"])
        if dest is None:
            q = _last_word(m["pre"])
            dest = q if q and q.lower() not in _NOT_QUALIFIERS and q[:1].isupper() else None
        if dest:
            out.append(_dated("logistics.trip", d.TRIP, trip_slot(dest), m, priority=10))
    for m in _GOING.finditer(text):
        dest = _dest(m["dest"])
        if (
            dest
            and (dated or "visiting" in m.group(0).lower())
            and subject_is_user(text, m.start())
        ):
            out.append(_dated("logistics.trip", d.TRIP, trip_slot(dest), m, priority=10))
    for m in _BACK_FROM.finditer(text):
        raw = m["dest"]
        found = event_slot(raw)
        dest = _dest(raw)
        if found and not found[0].startswith("trip."):
            continue  # "back from the Harry Potter party": an event attended, not a trip
        slot = found[0] if found else (trip_slot(dest) if dest and dest[:1].isupper() else None)
        if slot and subject_is_user(text, m.start()):
            out.append(
                _dated(
                    "logistics.trip_done",
                    d.TRIP,
                    slot,
                    m,
                    priority=10,
                    value="returned",
                    confidence=d.COMMITTED,
                    dates="past",
                )
            )
