"""Identity & Self-Concept: where the user lives, works, what they do, who they are.

Identity has accumulate semantics with high-confidence supersession (Table 1 row 1), so a
plain first-person statement of change ("we finally moved to London", "I joined Anthropic")
is emitted as `replace` at confidence 0.95 — the accumulate threshold of Appendix Z — while
"thinking about moving to London" stays a soft update (Appendix F).
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user, trim_phrase
from workers.extraction.draft import Draft, from_match
from workers.extraction.lexicon import DEMONYMS, NOT_PLACES, PROFESSIONS, words

_I = re.IGNORECASE
_OBJ = r"(?P<obj>[^\s,.;!?][^,.;!?]*)"
_DATE_WORDS = frozenset(
    words(
        "monday tuesday wednesday thursday friday saturday sunday january february march april "
        "may june july august september october november december tomorrow today yesterday "
        "tonight week month year"
    )
)

_MOVED = re.compile(
    rf"\b(?:moved|relocated|moved\s+back|moved\s+over|made\s+the\s+move|finished\s+moving)"
    rf"\s+(?:back\s+)?(?:to|into)\s+{_OBJ}",
    _I,
)
_MOVING = re.compile(
    r"\b(?:moving|relocating|move|relocate|(?:going|planning|plan|about|gonna|want|wanting|hoping)\s+"
    r"(?:to|on)\s+(?:move|moving|relocate)|will\s+(?:be\s+)?mov(?:e|ing)|'ll\s+be\s+moving"
    r"|(?:a|the)\s+move)"
    rf"\s+(?:back\s+)?to\s+{_OBJ}",
    _I,
)
_LIVE = re.compile(
    rf"\b(?:live|living|reside|residing|based|settled|settling)\s+(?:in|at|near)\s+{_OBJ}", _I
)
_FROM = re.compile(
    rf"\b(?:i'm|i\s+am|im)\s+(?:originally\s+)?from\s+{_OBJ}"
    r"|\bgrew\s+up\s+in\s+(?P<obj2>[^\s,.;!?][^,.;!?]*)",
    _I,
)

_ORG_VERBS = (
    r"(?:work|works|working)\s+(?:at|for)|joined|joining|(?:started|starting)\s+(?:a\s+(?:new\s+)?"
    r"(?:job|role|position)\s+)?(?:at|with)|got\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|offer|"
    r"position|role|gig)\s+(?:at|with|from)|accepted\s+(?:an?\s+|the\s+)?(?:offer|job|position)"
    r"\s+(?:at|from|with)|(?:got\s+)?hired\s+(?:at|by)|employed\s+(?:at|by)|signed\s+with"
    r"|(?:my\s+)?new\s+job\s+(?:is\s+)?at|my\s+(?:employer|company)\s+is"
    r"|(?:my|our)\s+(?:team|group|lab|department|division|office|org)\s+at"
)
_WORKS = re.compile(rf"\b(?P<verb>{_ORG_VERBS})\s+{_OBJ}", _I)
_LEFT = re.compile(
    r"\b(?P<verb>left|leaving|quit|quitting|resigned\s+from|resigning\s+from|"
    rf"(?:got\s+|been\s+|was\s+)?(?:laid\s+off|fired|let\s+go)\s+(?:from|at|by))\s+{_OBJ}",
    _I,
)
_JOBLESS = re.compile(
    r"\b(?:got|was|been|just\s+got)\s+(?:laid\s+off|fired|let\s+go|made\s+redundant)\b"
    r"|\b(?:i'm|im|i\s+am)\s+(?:now\s+)?(?:unemployed|between\s+jobs|out\s+of\s+work)\b",
    _I,
)
_NOT_ORGS = frozenset(
    words(
        "home night nights the moment a distance weekends remotely remote it this that them "
        "him her myself a club a gym the gym a team a band the team"
    )
)
_CLUBS = re.compile(
    r"\b(?:club|gym|team|group|class|choir|band|league|community|discord|"
    r"subreddit|course|program|programme|waitlist|protest|cult|brigade|church|organization"
    r"|organisation|charity|shelter|movement|committee|council|board|union|party|society"
    r"|network|forum|association|crew|squad|circle)\b",
    _I,
)
_JOB_WORDS = re.compile(
    r"\b(?:job|company|work|role|position|employer|join|joining|offer|"
    r"boss|career|startup|firm)\b",
    _I,
)

_PROF_HEADS = "|".join(sorted((re.escape(p) for p in PROFESSIONS), key=len, reverse=True))
_PROFESSION = re.compile(
    # "I'm" needs an article ("I'm a nurse"): "I'm also excited to guide" is no guide.
    # "I've been the chaplain at …" (present perfect: a role still held; "I was a nurse" is
    # history, not the current value)
    r"\b(?:(?:i'm|i\s+am|im|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:now\s+)?(?:an?|the)"
    r"|(?:i\s+work|(?:now\s+)?working)\s+as"
    r"(?:\s+an?)?|(?:became|become|i've\s+become|trained\s+as|qualified\s+as|(?:got\s+)?"
    r"promoted\s+to|retrained\s+as)(?:\s+an?|\s+the)?)\s+"
    rf"(?P<obj>(?:[\w-]+\s+){{0,3}}?(?:{_PROF_HEADS})s?)\b"
    rf"(?:\s+(?:at|for)\s+(?P<org>[^,.;!?]+))?",
    _I,
)
#: Frames that say a noun phrase is the user's occupation whatever the noun is ("I work as a
#: harbourmaster", "employed as a …", "I'm a cooper by trade"): the frame, not a list of job
#: words, carries the meaning, so a trade the lexicon never heard of is still a profession
#: (issue 11: value extraction by pattern families; round 22 — AV3 answers lost as fact-less raw
#: turns). "I'm a …" alone stays gated by the lexicon ("I'm a vegetarian" is no job).
_ROLE_NP = r"(?P<obj>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)"
_ROLE_END = (
    r"(?=\s+(?:at|for|in|on|with|and|but|since|from|who|because|now|these|so|after|before|until"
    r"|during|near|by|of|to|mostly|too|as|here|there)\b|\s*[,.;!?)]|\s*$)"
)
_PROFESSION_FRAME = re.compile(
    r"\b(?:i\s+(?:now\s+)?work|(?:i'm|i\s+am|im)\s+(?:now\s+)?(?:working|employed)"
    r"|i've\s+been\s+working|i\s+have\s+been\s+working|i\s+(?:earn|make)\s+(?:a|my)\s+living"
    r"|(?:re)?trained|qualified)\s+as\s+(?:an?|the)\s+"
    + _ROLE_NP
    + _ROLE_END
    + r"|\b(?:i'm|i\s+am|im)\s+(?:an?)\s+"
    + _ROLE_NP.replace("obj", "obj2")
    + r"\s+by\s+(?:trade|profession|training)\b",
    _I,
)
_SAYS_I = re.compile(r"(?:i|i'm|im)\b", _I)
#: Heads a profession frame can carry that are no occupation ("we work as a team").
_NOT_ROLES = frozenset(words("team unit pair duo family group whole one kind sort bit lot"))
_RETIRED = re.compile(r"\b(?:i'm|im|i\s+am|i\s+just|just|i|finally|officially)\s+retired\b", _I)
_NAME = re.compile(
    r"\bmy\s+(?P<which>(?:first\s+|last\s+|sur|full\s+|middle\s+)?name)\s+is\s+"
    r"(?P<obj>[A-Za-z][\w'-]+(?:\s+[A-Z][\w'-]+)?)"
    r"|\b(?:call\s+me|people\s+call\s+me)\s+(?P<nick>[A-Za-z][\w'-]+)"
    r"|\bchanged\s+my\s+(?P<which2>(?:first\s+|last\s+|sur)?name)\s+to\s+(?P<obj2>[A-Za-z][\w'-]+)",
    _I,
)
_AGE = re.compile(
    r"\b(?P<verb>i'm|i\s+am|im|(?:i\s+)?(?:just\s+)?turned|turning|i'll\s+be)\s+"
    r"(?P<age>\d{1,3})(?P<unit>\s*(?:years?\s+old|yrs?\s+old|y/?o))?\b"
    r"(?!\s*(?:%|percent|minutes?|mins?|hours?|kg|lbs?|k\b|dollars|bucks|euros|am|pm|miles"
    r"|km|days?|weeks?|months?|times|of|out|in\s+line|\$|/))",
    _I,
)
_AGE_FOLLOWERS = frozenset(
    words("and but now this today next so btw lol haha too already soon now, years yrs")
) | frozenset({""})
_DEMONYM_RE = "|".join(sorted((re.escape(x) for x in DEMONYMS), key=len, reverse=True))
_NATIONALITY = re.compile(
    rf"\b(?:i'm|i\s+am|im)\s+(?:(?:half|proudly|originally|fully)\s+)?(?P<obj>{_DEMONYM_RE})\b"
    r"(?!\s+(?:food|cuisine|restaurant|movies?|music|tv|shows?|culture|history|politics))"
    rf"|\bgot\s+(?:my\s+)?(?P<cit>{_DEMONYM_RE})\s+(?:citizenship|passport)",
    _I,
)
_PRONOUNS = re.compile(r"\bmy\s+pronouns\s+are\s+(?P<obj>[\w/]+)", _I)


def _place(raw: str) -> str | None:
    place = trim_phrase(raw, 4)
    words = place.lower().split()
    if not words or words[0] in _DATE_WORDS or any(w in _DATE_WORDS for w in words[:1]):
        return None
    if words[0] == "the" and len(words) > 1 and place.split()[1][:1].isupper():
        return place  # "the Netherlands", "the Bay Area"
    if words[0] in NOT_PLACES or words[-1] in NOT_PLACES or not re.match(r"^[^\W\d]", place):
        return None
    return place


def _org(raw: str, employed: bool = False) -> str | None:
    """`employed`: the verb says the user works there, so "the water board" is a workplace."""
    org = trim_phrase(raw, 4)
    if not org or org.lower() in _NOT_ORGS or (_CLUBS.search(org) and not employed):
        return None
    if org.lower().split()[0] in {"it", "this", "that", "them", "us", "you", "home"}:
        return None
    return org


def _city(
    m: re.Match[str],
    place: str,
    kind: str,
    update: d.UpdateSemantics,
    confidence: float,
    dates: d.DatePreference,
) -> Draft:
    return from_match(
        kind,
        "user.current_city",
        place,
        m,
        d.RESIDENCE,
        update,
        confidence,
        40,
        dates=dates,
        span=(m.start(), m.start("obj")),
    )


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _MOVED.finditer(text):
        if subject_is_user(text, m.start()) and (place := _place(m["obj"])):
            out.append(_city(m, place, "residence.moved", d.R, d.COMMITTED, "past"))
    for m in _MOVING.finditer(text):
        if subject_is_user(text, m.start()) and (place := _place(m["obj"])):
            # A move that has not happened yet keeps the old city current (Appendix F).
            out.append(_city(m, place, "residence.moving", d.S, d.PLANNED, "future"))
    for m in _LIVE.finditer(text):
        if re.search(r"\bused\s+to\s*$", text[: m.start()], _I):
            continue
        if subject_is_user(text, m.start()) and (place := _place(m["obj"])):
            out.append(_city(m, place, "residence.lives", d.R, d.COMMITTED, "none"))
    for m in _FROM.finditer(text):
        if place := _place(m["obj"] or m["obj2"]):
            out.append(
                from_match(
                    "identity.hometown",
                    "user.hometown",
                    place,
                    m,
                    d.IDENTITY,
                    d.R,
                    d.COMMITTED,
                    45,
                )
            )
    _work(text, clause.sentence_text or text, out)
    _who(text, out)
    return out


def _work(text: str, sentence: str, out: list[Draft]) -> None:
    for m in _WORKS.finditer(text):
        verb = m["verb"].lower()
        if not subject_is_user(text, m.start()) and not verb.startswith("my"):
            continue
        org = _org(m["obj"], employed=verb.startswith("work"))
        if org is None or (
            verb.startswith("join") and not org[:1].isupper() and not _JOB_WORDS.search(text)
        ):
            continue
        future = verb.startswith(("joining", "starting"))
        out.append(
            from_match(
                "identity.employer",
                "user.employer",
                org,
                m,
                d.WORK,
                d.R,
                d.COMMITTED,
                45,
                dates="future" if future else "past",
                span=(m.start(), m.start("obj")),
            )
        )
    for m in _LEFT.finditer(text):
        verb = m["verb"].lower()
        raw_org = trim_phrase(m["obj"], 4)
        is_job = bool(re.match(r"(?:my|the)\s+(?:job|company|role|position|work)\b", raw_org, _I))
        # "left London" is a move, "left Google" a job: only job-ish turns count (§3.2).
        if not subject_is_user(text, m.start()) or not (
            is_job
            or "off" in verb
            or "fired" in verb
            or "let go" in verb
            or (verb.startswith(("resign", "quit")) and raw_org[:1].isupper())
            or (raw_org[:1].isupper() and _JOB_WORDS.search(sentence))
        ):
            continue
        out.append(_left_job(m, priority=45))
    for m in _JOBLESS.finditer(text):
        if subject_is_user(text, m.start()):
            out.append(_left_job(m, priority=46))


def _left_job(m: re.Match[str], priority: int) -> Draft:
    """The employer slot emptied: a committed change, dated in the past."""
    return from_match(
        "identity.employer_left",
        "user.employer",
        None,
        m,
        d.WORK,
        d.R,
        d.COMMITTED,
        priority,
        dates="past",
    )


def _who(text: str, out: list[Draft]) -> None:
    for m in _PROFESSION.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        job = trim_phrase(m["obj"], 5)
        if job.lower() in {"phd", "student"} and re.search(r"\bphd\s+student", text, _I):
            job = "PhD student"
        out.append(
            from_match(
                "identity.profession",
                "user.profession",
                job,
                m,
                d.WORK,
                d.R,
                d.COMMITTED,
                55,
                span=(m.start(), m.end("obj")),
            )
        )
        if m["org"] and (org := _org(m["org"])):
            out.append(
                from_match(
                    "identity.employer",
                    "user.employer",
                    org,
                    m,
                    d.WORK,
                    d.R,
                    d.COMMITTED,
                    45,
                    span=(m.start("org"), m.end("org")),
                )
            )
    lexicon_spans = [(m.start(), m.end()) for m in _PROFESSION.finditer(text)]
    for m in _PROFESSION_FRAME.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in lexicon_spans):
            continue  # the lexicon's reading of the same words stands (it keeps the employer)
        job = m["obj"] or m["obj2"]
        said_by_user = _SAYS_I.match(m.group(0)) or subject_is_user(text, m.start())
        if job.split()[-1].lower() in _NOT_ROLES or not said_by_user:
            continue
        out.append(
            from_match(
                "identity.profession_frame",
                "user.profession",
                job,
                m,
                d.WORK,
                d.R,
                d.COMMITTED,
                55,
            )
        )
    for m in _RETIRED.finditer(text):
        out.append(
            from_match(
                "identity.profession",
                "user.profession",
                "retired",
                m,
                d.WORK,
                d.R,
                d.COMMITTED,
                55,
                dates="past",
            )
        )
    for m in _NAME.finditer(text):
        which = (m["which"] or m["which2"] or "name").lower().replace(" ", "_")
        slot = "user.name" if which in {"name", "full_name", "first_name"} else f"user.{which}"
        if which == "surname":
            slot = "user.last_name"
        value = m["obj"] or m["nick"] or m["obj2"]
        if value.lower() in {"not", "a", "the", "just", "actually", "kind", "weird"}:
            continue
        out.append(
            from_match(
                "identity.name",
                "user.nickname" if m["nick"] else slot,
                value,
                m,
                d.IDENTITY,
                d.R,
                d.COMMITTED,
                30,
            )
        )
    for m in _AGE.finditer(text):
        age = int(m["age"])
        if not 5 <= age <= 110 or not subject_is_user(text, m.start()):
            continue
        after = text[m.end() :].split()
        if not m["unit"] and after and after[0].lower().strip(",.!?") not in _AGE_FOLLOWERS:
            continue  # "I'm 5 minutes late", "I'm 2 stops away": a number, not an age
        future = m["verb"].lower().startswith(("turning", "i'll"))
        out.append(
            from_match(
                "identity.age",
                "user.age",
                m["age"],
                m,
                d.IDENTITY,
                d.S if future else d.R,
                d.PLANNED if future else d.COMMITTED,
                35,
                numeric=True,
            )
        )
    for m in _NATIONALITY.finditer(text):
        if m["cit"]:
            out.append(
                from_match(
                    "identity.citizenship",
                    f"user.citizenship.{m['cit'].lower()}",
                    m["cit"],
                    m,
                    d.IDENTITY,
                    d.A,
                    d.COMMITTED,
                    35,
                    dates="past",
                )
            )
        else:
            out.append(
                from_match(
                    "identity.nationality",
                    "user.nationality",
                    m["obj"],
                    m,
                    d.IDENTITY,
                    d.R,
                    d.STATED,
                    35,
                )
            )
    for m in _PRONOUNS.finditer(text):
        out.append(
            from_match(
                "identity.pronouns",
                "user.pronouns",
                m["obj"],
                m,
                d.IDENTITY,
                d.R,
                d.COMMITTED,
                30,
            )
        )
