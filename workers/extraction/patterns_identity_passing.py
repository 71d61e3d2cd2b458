"""Identity told in passing: an occupation or an origin said on the way to something else.

`patterns_identity` keys a profession when a frame or the job lexicon says so ("I work as a
…", "I'm a nurse") and an origin when the user says "I'm from …" / "grew up in …". Most users
never say either outright: they mention who they are while asking for something else —
"harbourmaster at Seahouses these thirty years", "I'm a freelance interpreter, been doing it
twelve years", "Occupation: organ builder and tuner, since 2009", "after twenty years of
tuning pianos for a living", "born and raised in Llandudno", "when I was a kid up in Umeå".
Such a turn used to be stored fact-less (a raw turn of category Other), and a question for the
user's job or home town found it only by its words, which share little with "what do you do
for work?" (MiniLM cosine 0.05; docs/extraction.md, rounds 18, 21 and 25).

The readings are grammatical families, not lists of jobs or towns:

* **an occupation held for a span** — a role noun phrase whose head is an agent noun by its
  form (-er, -or, -ist, -ian, -ant, -ary, -master, -monger, -smith, -wright, …), said of the
  user ("I'm a …", "I've been a …", or bare at a clause's start, as chat drops "I'm"), followed
  by the span it has been held ("these thirty years", "for twelve years", "since 2009",
  "been doing it twelve years"). The span is what makes a role an occupation rather than a
  description ("a keen runner", "a regular customer" hold no span of employment: they are
  excluded as closed classes of leisure and relation nouns);
* **a form's occupation field** — "Occupation: …", "Profession: …", "Trade: …";
* **for a living** — what the user does "for a living" ("I fix boilers for a living",
  "years of tuning pianos for a living"); not a wish ("I'd love to write for a living");
* **an origin** — "born (and raised) in <Place>", "raised / brought up in <Place>", "when I was
  a kid (up) in <Place>", "as a child in <Place>", "back home in <Place>", "<Place>, where I
  grew up"; a place is a capitalised name (a town, a region), never "a small town";
* **a first language** — "my first / native language is …", "a native … speaker", "… is my
  mother tongue".

Each is a Stable Identity fact (Table 1 row 1: identity, no decay), slotted as
`patterns_identity` slots the same attribute (`user.profession`, `user.hometown`), so a later
change of job supersedes it as it supersedes any other profession (A.7.1; AV4 asks the newest
job), with `replace` at `COMMITTED` as that family does. Guards: someone else's job or birth
("my son was born in …", "my brother, a plumber for twenty years") is not the user's; a job
applied for or wished for ("applied to be a …", "I'd love to … for a living") is no
occupation; a visit is no origin (only birth, upbringing and "back home" are).
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause
from workers.extraction.draft import Draft, from_match
from workers.extraction.lexicon import LANGUAGES, NOT_PLACES, words

_I = re.IGNORECASE
#: Before `patterns_identity`'s plain "I'm a …" reader that keeps a fact only when the
#: prototypes name an attribute (the value families are 80) and level with its profession
#: frames (55): one reading per stretch of text.
PRIORITY = 54
_PROFESSION_KIND = "identity.profession_passing_noun"
_ORIGIN_KIND = "identity.origin_passing_noun"
_LANGUAGE_KIND = "identity.first_language"
#: The kinds this family yields (`hedge_scope`).
KINDS = frozenset({_PROFESSION_KIND, _ORIGIN_KIND, _LANGUAGE_KIND})

#: The head of a role noun phrase, by its form: agent and occupational suffixes. A closed
#: morphological class, not a list of jobs ("harbourmaster", "cheesemonger", "actuary").
_AGENT_HEAD = (
    r"[a-z][\w-]*(?:er|or|ist|ian|ant|ary|eer|ier|yer|man|woman|master|mistress|monger|smith"
    r"|wright|keeper|maker|hand|nurse|wife|ess|ologist|ician|ographer|cian)"
)
#: Agent nouns that name a relation, a taste or a pastime, never an occupation: a closed
#: class of words the span frame would otherwise read ("a regular customer for ten years",
#: "a keen runner since 2015", "a member since 2019", "a vegetarian these twenty years").
_NOT_OCCUPATIONS = frozenset(
    words(
        "member members customer customers user users owner owners fan fans supporter "
        "supporters subscriber subscribers reader readers listener listeners viewer viewers "
        "follower followers believer believers smoker smokers nonsmoker drinker drinkers eater "
        "vegetarian vegetarians pescatarian sufferer sufferers survivor survivors patient "
        "tenant tenants resident residents neighbour neighbor passenger regular regulars "
        "beginner beginners learner learners amateur collector collectors runner runners "
        "swimmer swimmers climber climbers cyclist cyclists walker walkers hiker hikers rider "
        "player players gamer gamers baker bakers gardener gardeners knitter birder birders "
        "golfer golfers skier skiers sailor singer singers dancer dancers lover lovers partner "
        "mother father brother sister daughter son husband wife widow widower grandmother "
        "grandfather other another either neither whether over under after water winter "
        "summer number letter paper order corner border dinner computer"
    )
)
#: Modifiers that make an agent noun a pastime or a taste ("a keen runner", "an avid reader").
_LEISURE_MODIFIERS = frozenset(
    words(
        "keen avid amateur hobby weekend casual lifelong big huge massive die-hard diehard "
        "devoted passionate enthusiastic occasional regular loyal proud former ex retired "
        "aspiring wannabe would-be future"
    )
)
_DETERMINERS = frozenset(words("the a an my our his her their your this that these those its"))
_ROLE = rf"(?P<obj>(?:[a-z][\w-]*\s+){{0,3}}?{_AGENT_HEAD})"
_NUMBER = r"(?:\d+|[a-z]+(?:[\s-](?:odd|one|two|three|four|five|six|seven|eight|nine))?)"
#: The span a role has been held: "these thirty years", "for twelve years", "the last ten
#: years", "since 2009", "since March 2011", "since uni".
_SPAN = (
    r"(?:(?:for|these|the\s+(?:last|past)|over|nearly|almost|going\s+on)\s+(?:(?:the\s+)?"
    rf"(?:last|past|best\s+part\s+of)\s+)?{_NUMBER}\s+years"
    r"|since\s+(?:\d{4}|(?-i:[A-Z])[a-z]+\s+\d{4}|uni|university|college|school))"
)
_SPAN_ONLY = re.compile(rf"\b{_SPAN}\b", _I)
#: "been doing it twelve years", "done it for a decade": the span said of the role after it.
_DOING_SPAN = (
    rf"(?:been\s+doing\s+(?:it|this|that|the\s+job)|done\s+it)\s+(?:for\s+)?{_NUMBER}\s+years"
)
_HELD = re.compile(
    # "I'm a …" / "I've been a …" / "I have been the …"
    r"(?:\b(?P<lead>i'm|i\s+am|im|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:an?|the)\s+"
    # or the role bare at a clause's start or after a colon or dash ("…: harbourmaster at X")
    r"|(?:^|[:\u2014\u2013]\s*|\s-\s+))"
    + _ROLE
    # where it is held: "at Seahouses", "for the council", "in Leeds" (no sentence end inside)
    + r"(?:\s+(?:at|for|in|with|on)\s+[^,.;!?]{1,40}?)?"
    + rf"(?:,?\s+{_SPAN}|,(?:[^.;!?]{{0,40}}?,)?\s*(?:and\s+)?{_DOING_SPAN})\b",
    _I,
)
#: A form's field: "Occupation: self-employed organ builder and tuner".
_FIELD = re.compile(
    r"\b(?:occupation|profession|trade|job\s+title|line\s+of\s+work)\s*[:\u2014\u2013]\s*"
    rf"(?P<obj>(?:[a-z][\w-]*\s+){{0,3}}?{_AGENT_HEAD}(?:\s+and\s+{_AGENT_HEAD})?)\b",
    _I,
)
#: A field value's modifiers before its head, as many as there are (up to three, none a
#: preposition, article or conjunction): "senior engineer at …" is an engineer, not "senior".
_MODIFIERS = r"(?:(?!(?:at|for|in|on|with|of|the|a|an|to|from|and|or|now|@)\b)[a-z][\w-]*\s+){0,3}"
#: A field value's head: an agent noun by its form, or one of the two whole words the suffixes
#: miss ("nurse", "analyst": the suffix classes need a letter before them).
_FIELD_HEAD = rf"(?:{_AGENT_HEAD}|nurse|analyst)"
#: A profile's or a note's job line: "Job: data analyst at …", "- role: staff nurse", "Current
#: position: sous-chef" (round 27). "job", "role" and "position" name other things in running
#: text ("the job: a plumber came round"), so the label must open its line or clause (after
#: a list bullet, "my", "current", "day"); the value is read as `_FIELD` reads it. A markdown
#: list's "key: value" reaches the families as "key is value" (`workers/text/register.py`).
_JOB_FIELD = re.compile(
    r"^\s*(?:[-*•·]\s*)?(?:(?:my|current|present|day|main)\s+)?(?:job|role|position)"
    r"(?:\s+(?:field|title))?(?:\s*[:=\u2014\u2013]\s*|\s+is\s+(?:now\s+)?(?:an?\s+)?)"
    rf"(?P<obj>{_MODIFIERS}{_FIELD_HEAD}(?:\s+and\s+{_FIELD_HEAD})?)\b",
    _I,
)
#: A clause that drops "I'm" before its predicate, as notes, verse and telegrams do (round 27):
#: * "employed as (a) <role>" — the participle of employment says the role is a job
#:   ("employed as a librarian, nights mostly"). Without "as", as a telegram writes it
#:   ("EMPLOYED <ROLE> <PLACE> STOP"), it was measured and left out: the one such turn's fact
#:   answered its job question and pushed the same user's home answer out of a 10th place;
#: * "<rank> <role> at <Name>" — a rank of a workplace's hierarchy (head, chief, senior,
#:   junior, deputy, assistant, lead, principal, trainee, apprentice, staff) before an agent
#:   noun, then the capitalised place it is held at: "head baker at <Bakery>", "senior nurse
#:   at <Hospital>". The rank is what makes "baker" a post, not a pastime.
#: Only at a clause's start (after a colon, dash or line break too): "the head baker at X was
#: rude" has its own subject.
_RANK = r"(?:head|chief|senior|junior|deputy|assistant|lead|principal|trainee|apprentice|staff)"
_DROPPED_I = re.compile(
    r"(?:^|[:\u2014\u2013]\s*|\s-\s+)(?:now\s+|still\s+)?"
    rf"(?:employed\s+as\s+(?:an?\s+)?(?P<obj>{_MODIFIERS}{_FIELD_HEAD})\b"
    rf"|(?:the\s+|an?\s+)?(?P<ranked>{_RANK}\s+{_FIELD_HEAD})\s+at\s+(?:the\s+)?(?-i:[A-Z]))",
    _I,
)
#: What the user does for a living: "I fix boilers for a living", "years of tuning pianos for
#: a living". Not a wish or a question ("I'd love to …", "what do you do …").
_LIVING = re.compile(
    r"(?:\b(?:i|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?!(?:want|wanted|wish|would|'d|could"
    r"|should|might|may|will|hope|hoped|dream|plan|planned|need|must|can|don't|do|did|never"
    r"|used)\b)|\byears\s+of\s+)"
    r"(?P<obj>[a-z][\w-]*(?:\s+[\w'-]+){0,3}?)\s+for\s+a\s+living\b",
    _I,
)
_PLACE = r"(?P<place>(?:the\s+)?(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2})"
_DIRECTION = r"(?:(?:up|down|out|over|back)\s+)?"
_CHILD = r"(?:a\s+)?(?:kid|child|boy|girl|lad|lass|teenager|teen|little|young|small|nipper)"
#: Where the user was born or grew up.
_ORIGIN = re.compile(
    "|".join(
        form.replace("(?P<place>", f"(?P<place{n}>")
        for n, form in enumerate(
            (
                rf"\bborn\s+(?:and\s+[a-z]+\s+)?{_DIRECTION}in\s+{_PLACE}",
                rf"\b(?:raised|brought\s+up|bred)\s+{_DIRECTION}in\s+{_PLACE}",
                rf"\bwhen\s+(?:i|we)\s+(?:was|were)\s+{_CHILD}s?\s+{_DIRECTION}in\s+{_PLACE}",
                rf"\bas\s+{_CHILD}\s+{_DIRECTION}in\s+{_PLACE}",
                rf"\bback\s+home\s+in\s+{_PLACE}",
                rf"{_PLACE},?\s+where\s+i\s+(?:grew\s+up|was\s+(?:born|raised|brought\s+up))\b",
            )
        )
    ),
    _I,
)
#: Whose birth or upbringing: a third person before the verb ("my son was born in …").
_OTHER_SUBJECT = re.compile(
    r"\b(?:he|she|they|you|my\s+\w+|our\s+\w+|his\s+\w+|her\s+\w+|their\s+\w+|[A-Z][a-z]+)"
    r"(?:\s+(?:was|were|is|got|had\s+been|has\s+been))?\s*$"
)
_LANG = "(?P<lang>" + "|".join(sorted(LANGUAGES, key=len, reverse=True)) + r")\b"
#: The user's first language.
_FIRST_LANGUAGE = re.compile(
    rf"\bmy\s+(?:first|native|mother)\s+(?:language|tongue)\s+is\s+{_LANG}"
    rf"|\b(?:i'm|i\s+am|im)\s+an?\s+native\s+{_LANG.replace('lang', 'lang2')}\s+speaker"
    rf"|\b{_LANG.replace('lang', 'lang3')}\s+is\s+my\s+(?:first|native|mother)\s+"
    r"(?:language|tongue)",
    _I,
)
#: A change said in the clause: the role is left or taken up here, which
#: `patterns_identity` reads (a "left", "became", "retired" is a transition, not a state).
_CHANGE = re.compile(
    r"\b(?:quit|left|leaving|retired|retiring|became|becoming|used\s+to|was|were|former|ex-"
    r"|applied|applying|interview|interviewing|training\s+to\s+be|want\s+to\s+be)\b",
    _I,
)
_NOT_CITIES = frozenset(
    words(
        "the my our i january february march april may june july august september october "
        "november december monday tuesday wednesday thursday friday saturday sunday"
    )
)


def _role(raw: str) -> str | None:
    """The role noun phrase, or None when it names a relation, a taste or a pastime, or
    someone else ("my accountant for ten years": a determiner heads another's role)."""
    tokens = raw.split()
    if not tokens or tokens[-1].lower() in _NOT_OCCUPATIONS:
        return None
    if any(t.lower() in _DETERMINERS for t in tokens):
        return None
    if any(t.lower() in _LEISURE_MODIFIERS for t in tokens[:-1]):
        return None
    return " ".join(tokens)


def _origin_place(raw: str) -> str | None:
    first = raw.split()[0].lower()
    if first == "the" and len(raw.split()) > 1:
        first = raw.split()[1].lower()
    if first in _NOT_CITIES or first in NOT_PLACES:
        return None
    return raw


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    if not _CHANGE.search(text):
        for m in _HELD.finditer(text):
            if m["lead"] is None and not _bare_role_is_users(text, m.start()):
                continue
            if (role := _role(m["obj"])) is not None:
                out.append(_profession(m, role))
        for m in (*_FIELD.finditer(text), *_JOB_FIELD.finditer(text)):
            if (role := _role(m["obj"])) is not None:
                out.append(_profession(m, role))
        for m in _DROPPED_I.finditer(text):
            if not _bare_role_is_users(text, m.start()):
                continue
            if m["ranked"] is not None:  # the rank makes it a post ("head baker")
                out.append(_profession(m, " ".join(m["ranked"].split())))
            elif (role := _role(m["obj"])) is not None:
                out.append(_profession(m, role))
        for m in _LIVING.finditer(text):
            out.append(
                _profession(m, m["obj"], f"User's job, what they do for a living, is {m['obj']}")
            )
    for m in _ORIGIN.finditer(text):
        # born / raised / brought up: the subject comes before ("my son was born in …")
        passive = re.match(r"born|raised|brought|bred", m.group(0), _I)
        if passive and _OTHER_SUBJECT.search(text[: m.start()]):
            continue
        raw = next(v for k, v in m.groupdict().items() if k.startswith("place") and v)
        if (place := _origin_place(raw)) is not None:
            out.append(
                from_match(
                    _ORIGIN_KIND,
                    "user.hometown",
                    place,
                    m,
                    d.IDENTITY,
                    d.R,
                    d.COMMITTED,
                    PRIORITY,
                    statement=f"User's hometown (place of origin) is {place}",
                    prototype="passing",
                )
            )
    for m in _FIRST_LANGUAGE.finditer(text):
        lang = (m["lang"] or m["lang2"] or m["lang3"]).capitalize()
        out.append(
            from_match(
                _LANGUAGE_KIND,
                "user.first_language",
                lang,
                m,
                d.IDENTITY,
                d.R,
                d.COMMITTED,
                PRIORITY,
                statement=f"User's first language is {lang}",
                prototype="passing",
            )
        )
    return out


def hedge_scope(draft: Draft, clause: str) -> str:
    """The words whose hedge softens `draft`: for an identity told in passing, the clause up
    to the end of what it reads — "after twenty years of tuning pianos for a living I'd like
    to sound professional" hedges the wish, not the trade; any other draft, its whole clause."""
    return clause[: draft.span[1]] if draft.kind in KINDS else clause


def _bare_role_is_users(text: str, start: int) -> bool:
    """A role bare at a clause's start is the user's unless the clause before the colon
    names someone else ("my brother: plumber these twenty years")."""
    before = text[:start]
    return not re.search(r"\b(?:my|our|his|her|their)\s+\w+\s*$|\b(?:he|she|they)\b", before, _I)


def _profession(m: re.Match[str], role: str, said: str | None = None) -> Draft:
    return from_match(
        _PROFESSION_KIND,
        "user.profession",
        role,
        m,
        d.WORK,
        d.R,
        d.COMMITTED,
        PRIORITY,
        statement=said or f"User's job title (role at work) is {role}",
        prototype="passing",
    )
