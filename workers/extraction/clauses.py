"""Text plumbing shared by the pattern families: sentences, clauses, subjects, hedges.

Paper §3.2: classify the *fact*, not the utterance. A turn is cut into sentences and each
sentence into clauses, so that "I moved to London and my rent is £1,800" yields two facts
with two categories rather than one utterance-level label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.extraction.lexicon import words

_ABBREVIATIONS = re.compile(r"\b(?:dr|mr|mrs|ms|st|vs|etc|e\.g|i\.e|jr|sr|prof|approx|no)\.$", re.I)
#: A noun phrase asked back as a topic ("The exchange?") that the next words answer.
_TOPIC_QUESTION = re.compile(r"(?:the|my|our|that|this)\s[^?.!]{1,40}\?$", re.I)
#: Sentence ends. The whitespace before "..." and before a dash is bounded ({0,8}, {1,8}): an
#: unbounded `\s*` there rescans a whole whitespace run from each of its positions, quadratic
#: on pasted logs and padded text (20,000 spaces took 18 s). Any longer run is left to the
#: previous part, which is stripped, so the sentences are the same.
#: A slash with whitespace either side is a line break written inline, as verse, notes and
#: texting set their lines on one line ("keys in the door / a flat by the harbour / …"):
#: a sentence ends there as at a newline (round 27). "and/or", "24/7", "km/h" have none.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+|[\n;]+|\s{0,8}(?:\.\.\.+|…)\s*|\s{1,8}[-–—]{1,2}\s+|\s{1,8}/\s+"
)
_CLAUSE_SPLIT = re.compile(
    r",?\s+(?:and|but|so|because|cause|cuz|since|though|although|while|whereas|plus)\s+"
    r"(?=(?:i|i'm|im|i've|ive|i'd|i'll|we|we're|we've|my|our|me|the|they|he|she|it|it's|now"
    r"|then|also|still|there)\b)"
    r"|,\s+(?=(?:i|i'm|im|i've|i'd|i'll|we|we're|we've|my|our|now|but|then|also|so|and"
    r"|because|though|which)\b)"
    r"|,\s+(?=[a-z]+ing\b)"
    r"|\s+but\s+",
    re.IGNORECASE,
)
_LEADING_FILLER = re.compile(
    r"^(?:(?:so|well|oh|ok|okay|ah|um|uh|hey|yeah|yes|yep|btw|anyway|anyways|also|and|but"
    r"|lol|haha|omg|wow|update|news|big news|guess what|fun fact|fyi|ps|actually|honestly"
    r"|basically|fwiw|quick update)\b[\s,:!]*)+",
    re.IGNORECASE,
)

FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|we'll|our|ours)\b"
    r"|(?-i:\bus\b)",  # "the US" is a country
    re.IGNORECASE,
)
_SUBJECT_WORDS = frozenset(words("i i'm im i've ive i'd i'll we we're we've weve we'd we'll"))
_AUX_ADVERBS = frozenset(
    words(
        "have has had 've just finally recently also actually now already officially really "
        "still eventually literally basically totally definitely probably kinda sorta somehow "
        "even only once then am was 'm gonna going to been currently newly suddenly are is "
        "were 're both started starting began begun keep kept continue continued"
    )
)
#: Modal and planning chains between the subject and the verb: "I'm thinking about moving".
_MODAL_CHAIN = frozenset(
    words(
        "thinking about of considering planning on to want wanna might may could would will "
        "gonna going hoping plan decided trying need needs got seriously maybe probably "
        "definitely finally actually kinda sorta also just really still soon eventually "
        "able supposed excited happy glad finally officially 'll 'd"
    )
)
_DISCOURSE_OR_TIME = frozenset(
    words(
        "so and but well oh also btw anyway yeah yes ok okay um uh hey guess what news update "
        "last this next week month year weekend yesterday today tonight recently finally just "
        "morning afternoon evening in a few days weeks months years ago two three couple of "
        "lol haha omg wow honestly basically actually fyi ps big good great funny enough after "
        "long story short on monday tuesday wednesday thursday friday saturday sunday then "
        "earlier later at the end as of"
    )
)
_NEGATION = re.compile(
    r"\b(?:not|never|no\s+longer|don't|doesn't|didn't|won't|can't|cannot|isn't|aren't|wasn't"
    r"|weren't|haven't|hasn't|dont|doesnt|didnt|wont|cant|isnt|arent|wasnt|havent|hasnt)\b"
    r"(?!\s+(?:sure|decided|certain|only|just|yet|100%)\b)",
    re.IGNORECASE,
)
#: An added value, not a changed one: "I also love chocolate", "… as well", "me too".
ALSO = re.compile(r"\b(?:also|as\s+well)\b|\btoo\s*(?:[,.!?]|$)", re.IGNORECASE)
#: Strong hedges → soft update at low confidence (Appendix F: "thinking about moving").
_HEDGE = re.compile(
    r"\b(?:thinking\s+(?:about|of)|considering|contemplating|might|maybe|perhaps|possibly"
    r"|not\s+sure|unsure|not\s+decided|undecided|(?:haven't|havent|have\s+not)\s+decided"
    r"|debating|toying\s+with|tempted\s+to|wondering\s+(?:about|if|whether)|on\s+the\s+fence"
    r"|could(?!\s+(?:not"
    r"|n't|finally))|would\s+like\s+to|i'd\s+like\s+to|i'd\s+love\s+to|hoping\s+to|hope\s+to"
    r"|want\s+to|wanna|kinda\s+want|someday|weighing|(?:may|mite)\s+(?=(?:be|have|get|go|move"
    r"|switch|start|take|try|need|want|end|do|quit|leave|sell|buy)\b)"
    r"|not\s+(?:100%|a\s+hundred\s+percent)\s+sure|if\s+i\s+(?:can|could|get))",
    re.IGNORECASE,
)
#: A sentence that is nothing but hesitation ("not decided yet") softens the turn's facts.
PURE_HEDGE = re.compile(
    r"^(?:i'?m\s+|i\s+am\s+)?(?:still\s+)?(?:thinking\s+about\s+it|not\s+(?:sure|decided)"
    r"(?:\s+yet)?|undecided|haven'?t\s+decided(?:\s+yet)?|we'?ll\s+see|nothing'?s\s+decided"
    r"(?:\s+yet)?|(?:it'?s\s+)?(?:just\s+)?an?\s+idea|no\s+idea\s+yet|maybe|who\s+knows)\W*$",
    re.IGNORECASE,
)


#: A condition, a question about acting, or a guess: "if we cancel the trip", "should I
#: quit?", "the exchange probably won't happen".
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|whether|in\s+case|should\s+(?:i|we)|shall\s+(?:i|we)|do\s+(?:i|we)"
    r"|what\s+if|probably|likely|i\s+(?:think|guess|suppose|doubt))\b",
    re.IGNORECASE,
)
#: Where the clause of a change verb begins (scanning back) and its sentence ends.
_CLAUSE_START = re.compile(r"[.!?;:\n,]|\b(?:and|but|so|because|cause|then)\b", re.IGNORECASE)
_SENTENCE_STOP = re.compile(r"[.!;\n]|\?")
#: For `own_withdrawal`, which cuts a withdrawal word's clause the same way.
CLAUSE_START = _CLAUSE_START


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a user turn: its text, its sentence, and where it sits in the turn."""

    text: str
    sentence: int
    index: int
    sentence_text: str = ""


def sentences(text: str) -> list[str]:
    """Split a turn into sentences, keeping "Dr. Smith" and "$1,100.50" whole."""
    out: list[str] = []
    pending = ""
    parts = [p for p in _SENTENCE_END.split(text) if p and p.strip()]
    for i, part in enumerate(parts):
        pending = f"{pending} {part.strip()}" if pending else part.strip()
        if _ABBREVIATIONS.search(pending):
            continue
        if (
            _TOPIC_QUESTION.match(pending)
            and i + 1 < len(parts)
            and parts[i + 1].strip()[0].islower()
        ):
            continue  # "The exchange? not happening anymore": a topic, then what became of it
        out.append(pending)
        pending = ""
    if pending:
        out.append(pending)
    return out


def clauses(sentence: str, sentence_index: int, start_index: int) -> list[Clause]:
    """Split a sentence into clauses at conjunctions that start a new subject.

    A short left part is a compound subject, not a clause: "Alex and I broke up".
    """
    parts: list[str] = []
    cut = 0
    for m in _CLAUSE_SPLIT.finditer(sentence):
        left = sentence[cut : m.start()]
        short = len(left.split()) <= 2 or (
            len(left.split()) <= 4 and re.match(r"\s*(?:my|our)\b", left, re.IGNORECASE)
        )  # "my husband Tom and I are …": a compound subject
        if short and re.search(r"\band\b", m.group(0), re.IGNORECASE):
            continue
        parts.append(left)
        cut = m.end()
    parts.append(sentence[cut:])
    cleaned = [_LEADING_FILLER.sub("", p.strip(" ,")).strip(" ,") for p in parts]
    return [
        Clause(text=p, sentence=sentence_index, index=start_index + i, sentence_text=sentence)
        for i, p in enumerate(q for q in cleaned if q)
    ]


def subject_is_user(clause: str, start: int) -> bool:
    """Is the speaker the subject of the verb starting at `start`?

    "I finally moved", "we just moved", "moved to London last week" (chat drops the "I"),
    "Alex and I broke up" → yes; "my sister moved", "Einstein moved" → no. The check is what
    keeps third-party and world-knowledge statements out of personal slots (paper D.5).
    """
    words = clause[:start].lower().replace(",", " ").split()
    while words and (words[-1] in _AUX_ADVERBS or words[-1] in _MODAL_CHAIN):
        words.pop()
    if not words or words[-1] in _SUBJECT_WORDS:
        return True
    tail = " ".join(words[-3:])
    if re.search(r"\b(?:me|i)\s+and\s+\w+$|\w+\s+and\s+(?:i|me)$|\bboth\s+of\s+us$", tail):
        return True
    if words[-1] in {"and", "then", "but", "also", "or"} and FIRST_PERSON.search(" ".join(words)):
        return True  # coordinated verbs share the subject: "I live in X and work at Y"
    return all(w.strip("!.:") in _DISCOURSE_OR_TIME for w in words)


def negated(clause: str, start: int, end: int) -> bool:
    """A negator just before or inside [start, end) ("I don't live in …", "not vegan")."""
    return _NEGATION.search(clause[max(0, start - 25) : end]) is not None


#: A negator (`_NEGATION`, "nobody") right before a verb, at most one word between ("we
#: haven't really dropped it", "nobody abandoned it"), or a verb of nearly doing or of
#: considering before it ("we nearly abandoned it", "I thought about dropping it"): closed
#: grammatical families, no wording.
_DENIED_BEFORE = re.compile(
    rf"(?:{_NEGATION.pattern}|\b(?:nobody|no\s+one|almost|nearly|thought\s+(?:about|of)"
    r"|considered|contemplated|came\s+close\s+to))\s+(?:going\s+to\s+|[\w']+\s+)?$",
    re.IGNORECASE,
)


_TOKEN_START = re.compile(r"(?<!\S)\S")


def _last_tokens(text: str, end: int, count: int) -> int:
    """Where the last `count` whitespace-separated tokens of `text[:end]` begin (0 if fewer)."""
    width = 256
    while True:
        low = max(0, end - width)
        # `(?<!\S)` reads the text before `low`: a token cut by the window is not counted.
        starts = [m.start() for m in _TOKEN_START.finditer(text, low, end)]
        if len(starts) >= count:
            return starts[-count]
        if low == 0:
            return 0
        width *= 4


def denied_before(text: str, start: int) -> bool:
    """Whether the verb at `text[start:]` is negated or only nearly done or considered: "we
    haven't abandoned the plan" and "I thought about dropping the trip" withdraw nothing.

    A match ends at `start` and spans at most five tokens ("came close to going to"), so it is
    searched from the sixth token back: from the clause's beginning, every marker of a long
    clause rescanned it (review r16, H1)."""
    return _DENIED_BEFORE.search(text, _last_tokens(text, start, 6), start) is not None


def hedged(text: str) -> bool:
    return _HEDGE.search(text) is not None


def tentative(text: str, start: int, end: int, *, within: bool = False) -> bool:
    """Whether the change stated at `text[start:end]` is only weighed, not made (paper
    Appendix F: "thinking about moving to London" leaves "lives in Istanbul" standing; §5
    AV9): a hedge or a condition earlier in its clause ("kinda thinking about quitting my
    job", "might switch to oat", "if we cancel the trip"), or its sentence is a question
    ("should I scrap the cabin plan?"). The mechanisms that act on a raw turn's change verb
    (change naming, a latent slot's replacement cue, retractions) use it; what it holds is at
    most a soft update. `within`: the statement's own words count too (a verdict on a plan,
    "the exchange probably won't happen", says its hedge inside the match)."""
    before = text[:start]
    cuts = [m.end() for m in _CLAUSE_START.finditer(before)]
    clause = before[cuts[-1] if cuts else 0 :] + (" " + text[start:end] if within else "")
    if _HEDGE.search(clause) or _CONDITIONAL.search(clause):
        return True
    stop = _SENTENCE_STOP.search(text, end)
    return stop is not None and stop.group(0) == "?"


#: Words that deny what follows them within a few words ("I'd never switch to …", "not gonna
#: give up"); text with its apostrophes folded away (`fold_apostrophes`).
_DENIALS = r"(?:not|never|no|dont|doesnt|didnt|cant|cannot|couldnt|wont|wouldnt|shouldnt"
_APOSTROPHES = re.compile(r"['’‘`]")


def fold_apostrophes(text: str) -> str:
    """`text` lowercased with its apostrophes dropped ("I'd" → "id"), as the negation and
    subject word lists are written."""
    return _APOSTROPHES.sub("", text.lower())


def negation_before(*, within_words: int, ever: bool = False) -> re.Pattern[str]:
    """A pattern that finds a negation ending at most `within_words` words before the end of
    the (folded) text it searches; `ever` counts "ever" as one ("I'll ever forget …" is only
    ever said negated)."""
    listed = _DENIALS + ("|ever)" if ever else ")")
    return re.compile(rf"\b{listed}\W+(?:\w+\W+){{0,{within_words}}}$")


def has_first_person(text: str) -> bool:
    return FIRST_PERSON.search(text) is not None


_STOP_AFTER = re.compile(
    r"\s+'?(?:a\s+(?:few|couple|while|bit|lot)|for|with|because|cause|since|last|next|this|in|on|at|from|by|after|before|when"
    r"|while|where|and|but|so|now|already|yesterday|today|tonight|tomorrow|recently|finally"
    r"|again|too|as|ago|to|until|till|which|who|that|though|like|lol|haha|anymore|full"
    r"|soon|instead|right|back|permanently|officially|eventually|around|about|starting|or"
    r"|if|just|is|are|was|were|has|have|had|got|gets|will|would|leaves|departs|lands|goes"
    r"|should|can|could|might|'s|isn't|wasn't|said|says|someday|sometime|out|up|down|off"
    r"|there|here|later|next|one\s+day|these\s+days|nowadays|lately|currently|atm|for\s+good"
    r"|at\s+the\s+moment)\b.*$",
    re.IGNORECASE,
)


def trim_phrase(raw: str, max_words: int = 4) -> str:
    """The noun phrase at the start of `raw`: cut at prepositions, time words, punctuation."""
    phrase = re.split(r"[,.;:!?()\"]", raw, maxsplit=1)[0]
    phrase = _STOP_AFTER.sub("", " " + phrase).strip()
    words = phrase.split()[:max_words]
    return " ".join(words).strip(" '")


_DETERMINERS = frozenset(
    words(
        "the a an my our his her their this that these those some new next upcoming own whole "
        "big little first latest most many all certain any several"
    )
)


def slug(phrase: str, keep_leading: bool = False, max_words: int = 3) -> str:
    """A slot-key fragment: lower case, no determiners, words joined by "_"."""
    words = re.findall(r"[\w']+", phrase.lower().replace("'s ", " "))
    if not keep_leading:
        while words and words[0] in _DETERMINERS:
            words.pop(0)
    words = [w.strip("'") for w in words if w not in {"thing", "stuff", "whole"}]
    return "_".join(w for w in words[-max_words:] if w)


def head_noun(phrase: str) -> str:
    """The last content word: the head of an English compound ("book proposal" → proposal)."""
    words = [w for w in re.findall(r"[\w']+", phrase.lower()) if w not in _DETERMINERS]
    words = [w for w in words if w not in {"thing", "stuff", "idea", "plan", "whole"}]
    return words[-1].strip("'") if words else ""
