"""A pastime taken up: a Hobbies fact (Table 1 row 6; issue 11, AV5; round 25).

`patterns_pastimes` reads a pastime told by its habitual aspect ("most evenings I'm at the
wheel"); a pastime is as often told by its beginning — the inchoative: "I joined the church
choir", "taken up letterpress printing", "I've started logging birds", "got into
birdwatching", "signed up for pottery classes". Before this family such a clause was read by
the value families as a start whose kind the prototypes decided (mostly Other: "User started
letterpress printing"), or not at all (a choir joined names no value a value family keys),
and the set question (AV5: every item in the top 10) found the turn only by its words.

The reading is grammatical, not a list of hobbies: a verb of taking up, the user its
subject, and an object that is an activity —

* **a group or a class joined** (joined / started / signed up for + a collective noun of
  association or instruction: club, choir, team, league, society, class, lessons …);
* **an activity named by its -ing form** (started / got into / picked up / took up /
  signed up for + "logging birds", "letterpress printing"), not a state, a duty or a
  regimen's verb ("started taking …", "started working …", "started seeing someone");
* or **whatever was taken up** ("take up" is the verb of beginning a pastime: "taken up
  marquetry", "took up the violin"), but an offer, a post, time or room.

A job, a course of medicine, a diet or a gym membership's price is no pastime: the work,
study, meal, medicine and money vetoes (`patterns_pastimes.is_duty`) and the gerund guard
drop them, and a specific family's reading of the same words wins (`PRIORITY`: before the
value families, after every specific one — "started a new job at the bank" is the employer
family's, "took up pottery" the leisure lexicon's per-hobby slot).

The fact is the same additive, slot-less Hobbies fact the habitual reading makes (prototype
use "pastime": the same veto, the same fact-less-turn guard, `only_in_factless_turns`): a set
accumulates (A.7.2), so a pastime begun supersedes nothing and nothing supersedes it.
"""

from __future__ import annotations

import re

from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.patterns_pastimes import is_duty, pastime_draft

_I = re.IGNORECASE
#: Before the value families (80), which read the same stretch as a start whose kind the
#: prototypes decide; after every specific family (employer, medication, leisure lexicon …).
PRIORITY = 79

#: Collective nouns of association or instruction: what one joins or signs up for.
_GROUP = (
    r"(?:club|clubs|choir|band|team|league|group|society|orchestra|ensemble|troupe|squad"
    r"|crew|circle|guild|class|classes|course|lessons|workshop|workshops)"
)
#: Departments and institutions: joining them is a job or a degree, not a pastime.
_INSTITUTION = re.compile(
    r"\b(?:sales|marketing|engineering|finance|design|product|support|development|management"
    r"|leadership|hr|legal|it|ops|operations|accounts|research|data|security|admin|nursing"
    r"|degree|phd|masters|mba|diploma|apprenticeship|induction|onboarding|university|uni"
    r"|college|school|company|firm|practice|department|staff|board|payroll)\b",
    _I,
)
#: Gerunds that name a state, an attempt, a relationship, a duty or a regimen, not an
#: activity one takes up ("started taking metformin", "started seeing someone", "started
#: feeling better", "started fasting"), and -ing nouns that are no verb ("the morning").
_NOT_ACTIVITY = re.compile(
    r"(?:having|being|getting|seeing|knowing|feeling|thinking|hearing|looking|trying|taking"
    r"|using|working|dating|wondering|worrying|planning|saving|paying|spending|losing|gaining"
    r"|coughing|sneezing|bleeding|hurting|struggling|dealing|waiting|meaning|hoping|applying"
    r"|going|coming|leaving|moving|living|staying|fasting|dieting|counselling|counseling"
    r"|feeding|breastfeeding|commuting|driving|renting|earning|charging|billing|selling"
    r"|buying|ordering|eating|drinking|sleeping|smoking|vaping|crying|snoring|limping"
    r"|(?:some|no|any|every)thing|morning|evening|spring|king|ring|string|wing|sibling|ceiling"
    r"|building|wedding|meeting|earring|pudding|dumpling|sling|bring|thing|nothing|during"
    r"|ing)$",
    _I,
)
#: What "take up" takes when it is no pastime: an offer, a post, time or room.
_NOT_TAKEN_UP = re.compile(
    r"(?:the\s+|a\s+|an\s+|my\s+|your\s+|his\s+|her\s+|their\s+|our\s+)?(?:offer|offers"
    r"|position|post|role|job|residence|space|room|time|slack|lot|most|much|all|whole|half"
    r"|rest|issue|matter|case|challenge|invitation|invite|suggestion|idea|it|that|this|them"
    r"|him|her|arms|cause|mantle|reins)\b",
    _I,
)
_DETERMINER = r"(?:(?:the|a|an|some|my|our|this|that|local|new|weekly)\s+)*"
#: The verbs of taking something up, past or perfect (a plan — "I'm starting", "I want to
#: join" — is not a pastime yet); the object is read by `_object`.
_TAKEUP = re.compile(
    r"\b(?P<verb>joined|took\s+up|taken\s+up|started|began|begun"
    r"|(?:got|gotten)\s+(?:(?:really|properly|seriously|more)\s+)?into|signed\s+up\s+for"
    r"|picked\s+up)\s+(?P<obj>[^,.;!?:()\u2014\u2013]+)",
    _I,
)
#: Manner and degree adverbs before the verb ("I've properly got into …", "we finally
#: joined …"): the subject is the word before them.
_ADVERBS_BEFORE = re.compile(r"(?:\s+[a-z]+ly)+\s*$", _I)
_GROUP_OBJECT = re.compile(_DETERMINER + rf"(?:[\w'\u2019&-]+\s+){{0,4}}?{_GROUP}\b(?!\s+of\b)", _I)
_ING_OBJECT = re.compile(_DETERMINER + r"(?:[\w'\u2019&-]+\s+){0,2}?(?P<ing>[a-z-]{3,}ing)\b", _I)


def takes_up_pastime(verb: str, obj: str) -> bool:
    """Whether the verb of taking up and what follows it name a pastime begun."""
    verb = " ".join(verb.lower().split())
    if _INSTITUTION.search(obj[:60]):
        return False
    group = _GROUP_OBJECT.match(obj) is not None
    ing = _ING_OBJECT.match(obj)
    activity = ing is not None and not _NOT_ACTIVITY.match(ing["ing"])
    if verb == "joined":
        return group
    if verb in ("started", "began", "begun", "signed up for"):
        return group or activity
    if verb.startswith(("took", "taken")):
        return not _NOT_TAKEN_UP.match(obj)
    return activity  # got into, picked up


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    if is_duty(text):
        return []
    for m in _TAKEUP.finditer(text):
        before = _ADVERBS_BEFORE.sub("", text[: m.start()])
        if not subject_is_user(before, len(before)):
            continue
        if not takes_up_pastime(m["verb"], m["obj"]):
            continue
        return [pastime_draft(text, PRIORITY)]
    return []
