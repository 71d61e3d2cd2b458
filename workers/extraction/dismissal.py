"""A withdrawal said without a listed cancelling verb: a dismissal of a named topic (AV7).

The retraction markers (`retraction.py`) and the withdrawal probe (`withdrawal_probe.py`)
read the verbs and verdicts they were built on; a user who gives a plan up by dismissing it
— "the cabin, no.", "we're not doing it", "forget the cabin", "I withdrew the application",
"cabin = off" — says the same thing (paper §3.3: the user's explicit retraction of their own
statement; A.9 and Appendix K: the retraction filter scans the turn for markers; Table 13's
AV7 row, selective forgetting). Round 17's diagnosis (docs/extraction.md, "A dismissal of a
named topic"): of the failing AV7 phrasings on the validation tellings, nearly all had a
withdrawal turn neither the markers nor the probe read, most of them said in one of these
grammatical families:

* a *negated pro-verb*: the plan's verb replaced by "do"/"happen"/"go ahead" and denied, with
  no new object ("not doing it", "it's not happening", "we aren't going ahead");
* a *topic and a bare negative*: a named topic answered "no" ("the cabin: no.", "the cabin,
  nope", "the cabin is a no");
* a *topic and a verdict* joined by a symbol instead of a copula ("cabin = off",
  "cabin -> cancelled"), as notes and texting write it;
* a *dismissive imperative or resolution* with a pro-form or a named topic ("forget the
  cabin", "drop it", "we leave it");
* the *verb of withdrawing itself* ("withdraw", "withdrew", "retract", "pull the
  application").

A family match is only a candidate. It counts when its clause asserts it: not a question,
hedge or condition (`clauses.tentative`, read in the match's clause — a reason given after it
in the same sentence, "I don't want to move that far", does not veto it), not denied before it
(`clauses.denied_before`), not somebody else's word, wish or plan (`own_withdrawal`). What it
withdraws is decided elsewhere: `workers/query/withdrawn.py` binds it to the user's earlier
live assertion nearest it that shares a content word with the turn (a named topic, not a
pronoun alone: one of the turn's content words, generic plan nouns left out — the topic may
sit in another sentence of the turn than its dismissal). Closed grammatical classes —
negators, pro-forms, particles, symbols, the cancelling imperatives — and no wording of any
plan. Deterministic: a function of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.extraction.clauses import denied_before, tentative
from workers.extraction.own_withdrawal import denies_withdrawal, others_plan, voiced_by_another
from workers.text.bm25 import tokenize

_I = re.IGNORECASE
#: The family of a plan voided by the user's staying where they are (round 26).
STAY = "a stay that voids the plan"
#: The family of a plan voided by what the user chose instead of it (round 26).
REPLACEMENT = "a replacement chosen instead of the plan"
#: Families whose target must say a word of the topic they name, not any word of the turn:
#: "instead of buying an EV" gives up the EV, not whatever else the turn mentions.
BOUND_BY_TOPIC = frozenset({REPLACEMENT})
#: Where a dismissal ends: its clause or sentence, or a discourse tag after it. "as" ends it
#: as a conjunction of reason ("drop it as it costs too much"), not as the manner phrase that
#: keeps a thing unchanged ("leave it as it is", "leave it as is", "as things stand": round
#: 27 — the imperative then keeps what it names, it does not dismiss it).
_END = (
    r"(?=\s*(?:$|[,.;:!)\]]|[-–—]|\b(?:because|since|as(?!"
    + r"\s+(?:(?:it|they|that|this|things?)\s+(?:is|are|was|were|stands?)|is)\b"
    + r"(?!\s+(?:too|not|so|very|a|an|the|no|just|getting|going)\b))"
    + r"|cause|lol|though|anyway|period)\b))"
)
#: A pro-form standing for the plan ("it", "that", "this", "any of it").
_PRO = r"(?:it|that|this|any\s+of\s+(?:it|that|this))"
#: A topic: a few words, none of them a clause break.
_TOPIC = r"(?P<topic>[^,:;=.!?\n]{2,60}?)"
#: Status abbreviations of a thing that is not going ahead, as notes, rotas and texting write
#: them after a topic: cancelled ("cxl", "cxld", "canx", "canc"), never mind ("nvm"),
#: did not start ("DNS"), no go ("n/g", "no-go"), "x-ed". A closed class of shorthand (as
#: `workers/text/register.py` keeps its lexicon), read only between a topic and the segment's
#: end; "did not finish" (DNF) reports an outcome, not a plan given up, and is left out, and so
#: is "DNR" (the lead, round 24: it was named from a validation telling's wording, and it
#: reads "do not resuscitate" in a clinical note).
_SHORTHAND = r"(?:cxl|cxld|canx|canc|cancl?d|nvm|dns|n/g|no-?go|x-?ed|x['’]d)"
#: Discourse particles a topic may open with ("ok the cabin: no").
_LEAD = r"(?:(?:ok|okay|so|well|right|yeah|update|re|about|as\s+for)\b[:,]?\s+)*"

_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, _I))
    for name, pattern in (
        # "not doing it", "it's not happening", "we aren't going ahead with it", "not going."
        (
            "negated pro-verb",
            r"(?:\bnot|n['’]t|\bnever|\bno\s+longer)\s+(?:(?:doing|happening)(?:\s+"
            + _PRO
            + r")?|going\s+ahead(?:\s+with\s+"
            + _PRO
            + r")?|going)"
            r"(?:\s+(?:anymore|any\s+more|after\s+all|at\s+all|either|now|then|again))?" + _END,
        ),
        # "the cabin: no.", "the cabin, nope", "the cabin is a no", "cabin = no"
        (
            "topic and a bare negative",
            r"^" + _LEAD + _TOPIC + r"\s*(?:[:,=]|->|→|\s[-–—]|\s+(?:is|was)\s+a|['’]s\s+a)\s*"
            r"(?:a\s+)?(?:no|nope|nah|no-?go|never)\s*[.!]*\s*$",
        ),
        # "cabin = off", "cabin -> cancelled", "cabin — dead"
        (
            "topic and a verdict",
            r"^" + _LEAD + _TOPIC + r"\s*(?:=|->|→|\s[-–—]\s)\s*(?:officially\s+|totally\s+)?"
            # not "done" or "over": a completion ("gym session - done!") is no cancellation
            r"(?:dead|off|cancell?ed|scrapped|shelved|history|toast|called\s+off|axed|nixed)\b",
        ),
        # "cabin: cancelled.", "the Lisbon trip: cxl", "MBA = DNS": a topic, a separator — a colon
        # too, as notes and texting write a status — and a verdict or a status abbreviation
        # (`_SHORTHAND`) that ends the segment: "Plan: off to Lisbon Friday" is no verdict.
        (
            "topic and an abbreviated verdict",
            r"^" + _LEAD + _TOPIC + r"\s*(?::|=|->|→|\s[-–—])\s*(?:officially\s+|totally\s+)?"
            # not "off" or "dead" after a colon: "Heating: off.", "Phone: dead." report a state
            r"(?:cancell?ed|scrapped|shelved|axed|nixed|binned|ditched|called\s+off|"
            + _SHORTHAND
            + r")\s*[.!]*\s*$",
        ),
        # "forget the cabin", "drop it", "we leave it", "I'll let it go"
        (
            "dismissive imperative",
            r"(?:^|[,;:]\s*|\b(?:so|just|ok|okay|yeah)\s+)(?:(?:i|we)(?:['’]ll|\s+will)?\s+)?"
            r"(?:just\s+)?(?:(?:forget|drop|scrap|ditch|shelve|bin)\s+(?:about\s+)?(?:"
            + _PRO
            + r"|(?:the|my|our|that|this)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?)|leave\s+"
            + _PRO
            + r"(?:\s+there)?|let\s+"
            + _PRO
            + r"\s+go)"
            + _END,
        ),
        # "Dropping it for good.", "I'm scrapping it", "we're shelving that altogether": the
        # same cancelling verbs told as under way, with a pro-form only ("dropping the kids at
        # school" drops no plan) and no particle after it ("dropping it off").
        (
            "cancelling verb under way",
            r"(?:^|[,;:]\s*|\b(?:so|just|ok|okay|yeah)\s+)(?:(?:i|we)(?:['’]m|\s+am|['’]re"
            r"|\s+are)\s+)?(?:just\s+)?(?:forgetting|dropping|scrapping|ditching|shelving"
            r"|binning)\s+(?:about\s+)?"
            + _PRO
            + r"(?:\s+(?:for\s+good|permanently|altogether|entirely|completely))?"
            + _END,
        ),
        # "the matter may be treated as withdrawn", "consider it cancelled", "please regard
        # the booking as void": a verdict the user declares, in the formal register a modal
        # of permission opens ("may be treated as" grants the reading, it weighs nothing).
        (
            "declared verdict",
            r"(?:\b(?:may|can|should|is\s+to|are\s+to)\s+(?:now\s+)?be\s+(?:treated|regarded"
            r"|considered|taken|deemed|marked)\s+as|\b(?:consider|treat|regard|mark|count)\s+"
            r"(?:" + _PRO + r"|(?:the|my|our|that|this)\s+[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+"
            r"(?:as\s+)?)\s*(?:withdrawn|cancell?ed|dead|off|void|abandoned|closed|scrapped)"
            + _END,
        ),
        # Round 26 — a plan voided by its replacement, said as the user's choice to stay
        # where they are: "I'm staying put", "we're staying where we are", "I'm not going
        # anywhere" — the move or trip the turn names is off. Clause-final only ("staying put
        # tonight because of the snow" and "not going anywhere this weekend" say one evening
        # or one weekend, not a plan given up).
        (
            STAY,
            r"(?:^|[,;:]\s*|[-–—]\s*|\b(?:so|and|but|just|ok|okay|yeah)\s+)(?:i|we)(?:['’]m|\s+am"
            r"|['’]re|\s+are)\s+(?:just\s+|now\s+|definitely\s+)?(?:staying\s+(?:put|where\s+(?:i"
            r"|we)\s+(?:am|are))|not\s+going\s+anywhere)" + _END,
        ),
        # A plan voided by what the user chose instead, the plan named after "instead of" /
        # "rather than" as a verb of doing it: "I'm keeping the Golf rather than buying an
        # EV", "we've decided to stay in Leeds instead of moving south". The choosing verb
        # opens the choice (stay, stick with, keep, go with, opt for, settle on, renew); the
        # plan's words are its topic, and only a statement saying one of them is its target
        # (`BOUND_BY_TOPIC`).
        (
            REPLACEMENT,
            r"\b(?:i|we)(?:['’]m|\s+am|['’]re|\s+are|['’]ve|\s+have|['’]ll|\s+will)?\s+"
            r"(?:(?:just|now|finally|definitely|decided\s+to|going\s+to|gonna)\s+)*"
            r"(?:stay(?:ing|ed)?|stick(?:ing)?\s+with|stuck\s+with|keep(?:ing)?|kept|go(?:ing)?"
            r"\s+with|went\s+with|opt(?:ed|ing)?\s+for|chose|choosing|settl(?:ed|ing)\s+on"
            r"|renew(?:ed|ing)?)\b[^,.;!?]{0,50}?\b(?:instead\s+of|rather\s+than)\s+"
            r"(?P<topic>\w+ing\b[^,.;!?]{1,50}?)" + _END,
        ),
        # "I withdrew the application", "I withdraw this idea", "pulled my application"
        (
            "withdrawing verb",
            r"\b(?:withdr[ae]w(?:s|n|ing)?|retract(?:s|ed|ing)?|pull(?:s|ed|ing)?\s+(?:my|our"
            r"|the|that|this)\s+(?:[\w'-]+\s+){0,2}applications?)\b",
        ),
        # Round 26 (read last: a declared verdict or a dismissive imperative comes first) — a
        # note's topic and a bare participle verdict, no separator, as notes
        # and texting drop the copula: "Leeds move cancelled.", "Dog plan binned." (the
        # segment is nothing else; no pronoun subject: "we cancelled." names nothing).
        (
            "topic and a bare verdict",
            r"^"
            + _LEAD
            + r"(?!(?:i|we|they|he|she|you|it|mum|mom|dad)\b)"
            + _TOPIC
            + r"\s+(?:now\s+|officially\s+)?(?:cancell?ed|scrapped|shelved|axed|nixed|binned"
            r"|ditched|abandoned|called\s+off|parked\s+for\s+good)\s*[.!]*\s*$",
        ),
    )
)
#: A sentence or note line: family matches are read inside one.
_SEGMENT = re.compile(r"[^.!?;\n]+[.!?;]*")
#: A line break written inline — a slash with a space either side, as verse, notes and texting
#: set their lines on one line ("not for me / called it off, not doing it / …"): a segment
#: ends there as at a newline (round 27). "and/or", "24/7", "km/h" have no spaces and stay.
_LINE_SLASH = re.compile(r"\s+/\s+")
#: Interjections and particles: a "topic" of nothing but these names nothing ("Oh, no.",
#: "Well, no", "lol no") — a closed class.
_PARTICLES = frozenset(tokenize(
    "oh ok okay ah aw um uh er hey yeah yes yep yup no nah nope well lol haha omg wow ugh hmm"
    " sorry thanks please fine sure right god gosh damn dear man dude alas welp"
    " honestly seriously frankly basically actually literally really anyway anyways alright"
))  # fmt: skip
#: A condition anywhere before a declared verdict in its sentence (the verdict's own clause
#: starts after the comma that closes it, where `clauses.tentative` no longer sees it).
_CONDITION = re.compile(r"\b(?:if|unless|when|whenever|once|provided|in\s+case)\b", re.IGNORECASE)
#: Whitespace runs (`dismissals`).
_SPACES = re.compile(r"\s+")
#: The families anchored at both ends of a segment (a topic, then the verdict): no match is
#: longer than this, so longer segments are not tried against them.
_ANCHORED = frozenset(
    {
        "topic and a bare negative",
        "topic and a verdict",
        "topic and an abbreviated verdict",
        "topic and a bare verdict",
    }
)
_ANCHORED_MAX = 200
#: "withdraw" of money ("I withdrew 500 euros for the trip") or the adjective ("he's really
#: withdrawn") withdraws no plan (review r17 H2).
_MONEY_AFTER = re.compile(
    r"^\s+(?:\S+\s+){0,2}?(?:[$€£]|\d|cash|money|euros?|dollars?|pounds?|quid|bucks|funds)",
    _I,
)
_ADJECTIVE_BEFORE = re.compile(
    r"(?:\b(?:is|am|are|was|were|be|been|seems?|seemed|so|really|very|quite|bit|more|too)"
    r"|'m|'s|'re)\s+$",
    _I,
)


def _not_a_plan(segment: str, m: re.Match[str]) -> bool:
    """A withdrawing verb that withdraws money, or the adjective "withdrawn"."""
    if _MONEY_AFTER.match(segment[m.end() :]):
        return True
    return m.group(0).lower().endswith("drawn") and bool(
        _ADJECTIVE_BEFORE.search(segment[: m.start()])
    )


#: Words any topic or dismissal may share without naming the same thing.
_GENERIC = frozenset(tokenize("thing things plan plans idea ideas project stuff matter whole"))
#: The light verbs a replacement's topic opens with: "instead of going freelance" names
#: freelancing (round 26).
_LIGHT = frozenset(tokenize("going getting doing having making taking"))


@dataclass(frozen=True, slots=True)
class Dismissal:
    """A family match the user asserts: which family, and the segment it was read in."""

    family: str
    segment: str
    #: The topic the family names before its verdict ("the cabin" of "the cabin: no."), if it
    #: has one.
    topic: str | None = None


def dismissals(text: str) -> list[Dismissal]:
    """The turn's asserted dismissals, in text order (none if the turn denies a cancelling
    verb or verdict anywhere: "we haven't dropped it, not doing it differently" keeps it)."""
    if denies_withdrawal(text):
        return []
    out = []
    for seg in _SEGMENT.finditer(_LINE_SLASH.sub("\n", text)):
        segment = seg.group(0).strip()
        # Runs of whitespace read as one (the families' separators would otherwise try
        # every split of a run: review r17 H1); a segment longer than any dismissal the
        # anchored families can match is read by the others only.
        segment = _SPACES.sub(" ", seg.group(0)).strip()
        if not segment or segment.endswith("?"):
            continue
        for family, pattern in _FAMILIES:
            if family in _ANCHORED and len(segment) > _ANCHORED_MAX:
                continue
            m = pattern.search(segment)
            if m and _asserted(segment, m, family):
                out.append(Dismissal(family, segment, m.groupdict().get("topic")))
                break
    return out


def _asserted(segment: str, m: re.Match[str], family: str) -> bool:
    """The match is the user's own, said outright: no hedge, condition or question in its
    clause, not denied before it (the negated pro-verb carries its own negation), not voiced
    by another or said of another's plan."""
    if family == "withdrawing verb" and _not_a_plan(segment, m):
        return False
    topic = m.groupdict().get("topic")
    if topic is not None and not set(tokenize(topic)) - _PARTICLES:
        return False  # "Oh, no.": an interjection, no named topic
    start = m.start("topic") if topic else m.start()
    # A declared verdict's modal grants the reading ("may be treated as withdrawn"): only a
    # hedge or condition before it weighs it.
    if tentative(segment, start, m.end(), within=family != "declared verdict"):
        return False
    if family == "declared verdict" and _CONDITION.search(segment[: m.start()]):
        return False  # "if it rains, the match may be treated as abandoned"
    if family != "negated pro-verb" and denied_before(segment, m.start()):
        return False
    return not (voiced_by_another(segment, start) or others_plan(segment))


def topic_words(text: str) -> frozenset[str]:
    """The stemmed content words of a turn with a dismissal, generic plan nouns left out: the
    topic it names may sit in another sentence than its dismissal ("the band thing is over.
    … not doing it")."""
    return frozenset(set(tokenize(text)) - _GENERIC)


#: A note's heading: a short topic and a colon opening the turn ("Lisbon: …", "The loft
#: conversion: …"), as notes and texting write what the rest of the line is about.
_HEADING = re.compile(r"^\s*(?P<topic>[\w'-]+(?:\s+[\w'-]+){0,2})\s*:\s+\S")
#: Headings that name the kind of note, not its topic ("Update: …", "List: …").
_NOTE_KINDS = frozenset(tokenize(
    "update news note notes list todo reminder status fyi ps edit correction question plan plans"
    " today tonight tomorrow yesterday morning evening night weekend week"
))  # fmt: skip


def heading_words(text: str) -> frozenset[str]:
    """The content words of the turn's note heading ("Lisbon: …" → lisbon), none if it has
    none or it names only the kind of note: the topic the rest of the note is about."""
    m = _HEADING.match(text)
    if m is None:
        return frozenset()
    return frozenset(tokenize(m["topic"])) - _GENERIC - _PARTICLES - _NOTE_KINDS


def named_topic_words(text: str) -> frozenset[str]:
    """The stemmed content words of the topics the turn's asserted dismissals name before
    their verdicts ("the Lisbon trip: cxl" → lisbon, trip; generic plan nouns and particles
    left out): what the dismissal itself says it gives up, narrower than `topic_words`. A
    turn with a dismissal that opens with a note heading names the heading's topic too
    ("Lisbon: mum's not well, we're staying put." → lisbon; round 26): the note's comment is
    about it, whichever of its sentences the dismissal sits in."""
    found = dismissals(text)
    named = frozenset(
        w
        for d in found
        if d.topic is not None
        for w in tokenize(d.topic)
        if w not in _GENERIC and w not in _PARTICLES and w not in _LIGHT
    )
    return named | heading_words(text) if found else named
