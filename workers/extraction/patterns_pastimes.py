"""A pastime told as what the user habitually does: a Hobbies fact (Table 1 row 6; issue 11, AV5).

`patterns_leisure` keys a hobby by its name from a lexicon ("took up pottery"); most pastimes
are told instead as an activity the user keeps doing, in words no lexicon holds: "most nights
after tea I'm in the shed with the chisels", "sundays: cold-water dip at the quarry",
"Evenings: accordion", "I've been whittling in the garage". Such a turn used to be stored
fact-less (a raw turn of category Other), and a question for the user's pastimes (AV5: every
item in the top 10) found it only by its words, which share nothing with "hobbies" or "free
time" (docs/extraction.md, rounds 17, 18, 20).

The reading is grammatical, not a list of hobbies: a clause that

* marks **habitual aspect** — a frequency or a repeated period ("every weekend", "most
  evenings", "on Sundays", a plural weekday or part of the day, "twice a week", "usually",
  a present perfect progressive "I've been …ing", "these days" / "lately", or a plural
  period heading the clause "Evenings: …") — `recurrence.marks_recurrence` and `_HABITUAL`;
* tells an **activity of the user's** — the user is the subject, or chat dropped the subject;
  a third person's routine ("my son plays every week") is not the user's pastime;
* and is not a **duty or a daily-care habit** — work, a commute, errands; eating, drinking,
  sleeping, taking medicine (those are Identity, Obligations or Preferences & Habits, which
  their own families key: a coffee order is a replace slot, a pastime is not).

The fact is additive (A.7.2: a set accumulates items): no slot key, `accumulate`, confidence
`STATED` (below the 0.95 an accumulate-semantics fact needs to supersede anything, Appendix
Z) — it neither replaces nor is replaced by another statement. The set question's
category-forced retrieval (§3.3) and routing ρ find the fact; the turn's raw text keeps its own
category (`stage._mixed_categories`), so one item does not take two of the first places.
The family runs last (`PRIORITY`): any other family's reading of the same words wins, and a
value family's habit that the prototypes find no attribute for becomes this fact instead of
nothing (`classify`, prototype use "pastime").
"""

from __future__ import annotations

import dataclasses
import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause
from workers.extraction.draft import Draft
from workers.extraction.lexicon import DRINKS, FOODS
from workers.extraction.model import ExtractedFact
from workers.extraction.recurrence import marks_recurrence

_I = re.IGNORECASE
#: After every other family (the value families are 80): one reading per stretch of text.
PRIORITY = 85
#: The canonical words put before the user's own (`finishing.with_statement`): a question for
#: the set asks in these words ("hobbies", "free time"), not the turn's.
STATEMENT = "User's hobby, in their free time"

#: Foods and drinks the preference families know (`lexicon`): what a meal habit names.
_FOOD = "|".join(sorted((re.escape(w) for w in FOODS | DRINKS), key=len, reverse=True))
_DAY = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)"
)
_PART = r"(?:mornings|afternoons|evenings|eves|nights|weekends|weeknights)"
#: Habitual aspect beside what `recurrence` reads (a repeated period, a plural weekday, a
#: frequency word, a practice kept up for a span).
_HABITUAL = re.compile(
    # "most evenings", "most Saturday mornings", "most weekends"
    rf"\bmost\s+(?:{_DAY}\s+)?(?:days|weeks|{_PART}|{_DAY}s)\b"
    # a plural part of the day or week as an adverb: "in the evenings", "weekends I …"
    rf"|\b(?:in\s+the\s+|on\s+|at\s+)?{_PART}\b"
    r"|\b(?:on|at)\s+(?:the\s+)?weekends?\b"
    # a plural period heading the clause: "Evenings: accordion", "sundays - a dip"
    rf"|^\s*(?:{_DAY}s|{_PART})\s*(?:lately\s*)?[:\u2014\u2013-]"
    # the present perfect progressive of an activity: "I've been whittling" (not of a state,
    # a feeling or an attempt: "I've been doing great", "been getting stressed", "been using")
    r"|\b(?:i've|ive|i\s+have|we've|we\s+have)\s+been\s+(?!(?:to|doing|getting|feeling|using"
    r"|thinking|trying|having|meaning|waiting|wondering|looking|struggling|dealing|working"
    r"|hearing|seeing|telling|saying|planning|hoping|talking)\b)[a-z]+ing\b"
    r"|\bevery\s+chance\b"
    # a practice kept up since a time: "have done since the winter"
    r"|\b(?:have|'ve)\s+(?:done|been\s+doing)\s+(?:it\s+|that\s+|so\s+)?since\b",
    _I,
)
#: Someone else's routine, or a thing's: the clause opens on another subject ("my son plays
#: …", "the bus every weekend is …", "the neighbour is burning leaves every Saturday").
_OTHER_SUBJECT = re.compile(
    r"^\s*(?:(?:he|she|they|it|you)(?:'s|'re|\s)"
    r"|(?:the|my|our|his|her|their|your|a|an)\s+(?!own\b)(?:[\w'-]+\s+){0,3}?"
    r"(?:is|are|was|were|has|have|does|do|keeps|goes|gets|[a-z]+s)\b)",
    _I,
)
#: Duties and daily care: work, a shift, a commute, the working week, errands, money; eating,
#: drinking, sleeping, medicine. Those are other categories (Identity, Obligations, Financial,
#: Preferences & Habits, Health), which their own families key. And a request ("please …").
_DUTY = re.compile(
    r"\b(?:i|we)(?:'m|\s+am|'re|\s+are)?\s+(?:\w+\s+)?(?:work|works|working|commute|commuting)\b"
    r"|\bat\s+(?:work|the\s+office)\b|\b(?:my|the)\s+(?:job|commute|shift\s+(?:is|starts))\b"
    r"|\bon\s+(?:nights|days|earlies|lates)\b|\b(?:each|every)\s+weekday\b|\bweekdays\b"
    r"|\b(?:clients|patients|customers|errands|chores|homework|overtime|on\s+call)\b"
    r"|[$\u00a3\u20ac]\s?\d|\b\d+\s*(?:dollars|pounds|euros|bucks|quid)\b"
    # daily care by its verb ("after tea" is a time of day, "I drink tea" a taste)
    r"|\b(?:eat|eats|eating|ate|drink|drinks|drinking|drank|sleep|sleeps|sleeping|wake|wakes"
    r"|waking|meds|medication|pills?|tablets?)\b"
    r"|\b(?:get|gets|getting|got)\s+up\b|\bgo(?:es|ing)?\s+to\s+bed\b"
    # a meal or a drink had, got or brought ("a glass of red with dinner", "salmon nigiri
    # twice a week"): a taste, keyed by the preference families (Table 1 row 7)
    r"|\b(?:with|for|over)\s+(?:my\s+|our\s+)?(?:breakfast|lunch|dinner|supper|brunch)\b"
    rf"|\b(?:have|has|having|get|gets|getting|grab|grabs|order|orders|bring|brings|go\s+for"
    rf"|goes\s+for)\s+(?:[\w'-]+\s+){{0,3}}?(?:{_FOOD}|glass|cup|bowl|plate|pint|mug|slice"
    r"|container|portion)s?\b"
    # a commute: "the train to work", "cycle in every day"
    r"|\bto\s+(?:work|campus|school|college|uni|the\s+office)\b"
    r"|\b(?:cycle|cycles|cycled|walk|walks|walked|drive|drives|drove)\s+in\b"
    # a regimen: "I'm on allopurinol every day" (a bare noun after "on", then how often)
    r"|\b(?:i'm|im|i\s+am|we're)\s+(?:now\s+|still\s+)?on\s+(?!(?:the|a|an|my|our)\b)[a-z]+\s+"
    r"(?:every|each|daily|twice|once)\b"
    r"|\b(?:please|can\s+you|could\s+you|would\s+you)\b",
    _I,
)
#: Something done: a verb the user is the subject of, an activity named by its -ing form at
#: the clause's start (chat drops the "I": "roller skating at the rink every Friday"), or a
#: plural period heading the clause ("Evenings: accordion").
_ACTIVITY = re.compile(
    r"\b(?:i|we)(?:'m|\s+am|'re|\s+are|'ve|\s+have|m|ve)?(?:\s+(?:usually|always|often|still|now"
    r"|normally|generally|mostly|also|just|really|been))*\s+(?!(?:am|are|have|had|was|were|do"
    r"|did|can|could|will|would|should|might|must|need|think|know|guess|hope|feel|felt|want"
    r"|wish|mean|don't|can't|won't|didn't|lying|feeling|waiting|trying|thinking|meaning"
    r"|wondering|having)\b)[a-z]+"
    # (not a state's gerund as a subject: "having that picture up reminds me every day")
    r"|^\s*(?:[a-z-]+\s+)?(?!(?:having|being|getting|seeing|knowing|feeling|thinking|hearing"
    r"|looking|trying|doing)\b)[a-z-]{3,}ing\b"
    rf"|^\s*(?:{_DAY}s|{_PART})\s*(?:lately\s*)?[:\u2014\u2013-]\s*\S",
    _I,
)


#: The simple present of a dynamic verb with the user its subject is habitual aspect by
#: itself ("I crochet while I watch", "I keep bees", "I carve spoons in the shed"): English
#: has no present of a single event but the report of one. Not a state, a feeling, a thought
#: or a wish (stative verbs: "I live", "I need", "I think"), not an auxiliary or a modal
#: ("I do think", "I can"), not a catenative ("I keep forgetting", "I tend to"), not a duty's
#: verb (teach, manage, sell: a job; take, pay, owe: a regimen or money; cook, clean, shop:
#: daily care) and not a verb of saying or asking ("I mean", "I wonder").
_SIMPLE_PRESENT = re.compile(
    r"^\W*(?:(?:and|so|but|also|now|well|yes|yeah|oh|plus|then)\W+)*(?:i|we)\s+"
    # Adverbs and floating quantifiers between the subject and its verb are read past once and
    # never given back (possessive): a backtrack made the adverb itself the "verb" ("I just
    # took …", "we all made …", "I really appreciate …" read as habits — 65 LoCoMo dev turns,
    # recall@5 0.608 → 0.600, round 27). An adverb left in the verb's place is no verb.
    r"(?:(?:also|still|now|just|mostly|sometimes|even|really|all|both|totally|definitely"
    r"|actually|truly|seriously|honestly|literally|genuinely|absolutely|basically|simply"
    r"|certainly)\s+)*+"
    r"(?![a-z]{3,}ly\b)"
    r"(?!(?:already|last|ever|once|too|kinda|sorta|gotta|gonna|wanna|start|begin|stop"
    r"|continue|plan|intend|decide|wait|rely|cherish|treasure|value|admire|recommend|cut"
    r"|set|quit|shut|hurt|cost)\b)"
    r"(?!(?:am|are|have|had|has|was|were|do|does|did|can|could|will|would|shall|should|may"
    r"|might|must|need|want|like|love|hate|prefer|think|know|believe|feel|hope|guess|mean"
    r"|wish|wonder|suppose|reckon|bet|see|hear|seem|live|own|rent|owe|pay|earn|work|teach"
    r"|manage|sell|lead|take|get|got|keep\s+\w+ing|tend|try|agree|understand|remember"
    r"|forget|miss|cook|clean|shop|drive|commute|sleep|eat|drink|say|ask|tell|promise"
    r"|swear|doubt|fear|care|look|sound|go|come|stay|let|use|make|find|call|found|figured?"
    r"|realise|realize|admit|appreciate|apologi[sz]e|hear|don't|dont|can't|cant|won't"
    r"|didn't|always|never|usually|often|consider|remain|digress|enclose|write\s+(?:to|on)"
    # the irregular pasts (a past report, not a habit): a closed class
    r"|met|lost|grew|drove|left|put|went|came|saw|sang|ran|swam|rode|wrote|took|gave|made"
    r"|found|bought|brought|caught|taught|thought|sold|told|held|kept|slept|spent|sent|built"
    r"|felt|fell|won|began|drew|threw|flew|wore|tore|broke|spoke|chose|froze|stole|woke|hid"
    r"|bit|beat|shot|fought|sought|dug|hung|stuck|struck|swung|led|fed|bled|fled|sat|stood"
    r"|understood|paid|laid|said|heard|ate|drank|forgot|became|shook|blew|knew|dealt|meant)\b)"
    r"(?P<verb>[a-z]{3,})(?<!ed)(?<!ing)(?<![^s]s)\b(?!')",
    _I,
)
#: Counted periods name a date, not a habit: "two weekends ago", "a few nights later".
_COUNTED = re.compile(
    rf"\b(?:\d+|a\s+few|a\s+couple\s+of|couple\s+of|two|three|four|five|several)\s+{_PART}\b"
    r"(?!\s+(?:a|per|every|each)\s)",  # "three mornings a week" is a frequency
    _I,
)


def is_duty(text: str) -> bool:
    """Whether a clause tells a duty or daily care (work, a commute, errands, money, a meal,
    sleep, medicine, a regimen) or makes a request: no pastime, however it is told."""
    return _DUTY.search(text) is not None


def reads_as_pastime(text: str) -> bool:
    """Whether a clause tells an activity the user habitually does (and not a duty)."""
    marked = _COUNTED.sub(" ", text)
    if not (
        marks_recurrence(marked, adverbs=False)
        or _HABITUAL.search(marked)
        or _SIMPLE_PRESENT.match(text)
    ):
        return False
    if _OTHER_SUBJECT.match(text) or is_duty(text):
        return False
    return _ACTIVITY.search(text) is not None


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    if not reads_as_pastime(text):
        return []
    return [pastime_draft(text, PRIORITY)]


def pastime_draft(text: str, priority: int) -> Draft:
    """The pastime fact of a clause (Hobbies, no slot, additive, A.7.2), at `priority`: the
    habitual reading's and the take-up family's (`patterns_takeups`) one shape."""
    return Draft(
        # "_noun": the clause is kept whole, never read as starting on its verb ("Evenings:
        # accordion", "roller skating every Friday": `finishing` puts no "User" before it)
        kind="hobby.pastime_noun",
        categories=d.HOBBY,
        slot_key=None,
        value=None,
        update=d.A,
        confidence=d.STATED,
        span=(0, len(text)),  # the clause: any specific family's reading wins
        priority=priority,
        prototype="pastime",
    )


def with_habits_as_pastimes(drafts: list[Draft], clause: Clause) -> list[Draft]:
    """A value family's habit ("I <verb> … every <period>", kept only if the prototypes name
    an attribute: a coffee order, a wake-up time) in a clause that reads as a pastime falls
    back to a pastime when no attribute is named (prototype use "habit", `classify`), instead
    of being dropped: "every evening I play a few blitz games" names no attribute."""
    if not any(dr.prototype == "require" and dr.kind == "value.habit" for dr in drafts):
        return drafts
    if not reads_as_pastime(clause.text):
        return drafts
    return [
        dataclasses.replace(dr, prototype="habit")
        if dr.prototype == "require" and dr.kind == "value.habit"
        else dr
        for dr in drafts
    ]


def only_in_factless_turns(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    """The pastime readings of a turn, only when nothing else was read in it: the turn would
    otherwise be stored fact-less. A turn with a fact of its own lives and dies with that fact
    (a superseded faith, a replaced job); a slot-less, never-superseded pastime drawn from it
    would keep its raw turn current and serve it as a stale answer (heldout2, development: a
    routine told beside an old denomination). A habit reverts to the value family's own use."""
    if all(f.prototype in ("pastime", "habit") or f.quarantined for f in facts):
        return facts
    return [
        f.model_copy(update={"prototype": "require"}) if f.prototype == "habit" else f
        for f in facts
        if f.prototype != "pastime"
    ]
