"""Is a withdrawal the user's own? One gate for every path that reads one (issue 11, review R14).

The paper's retraction is the user's explicit retraction of their own statement (§3.3: "the
dog thing is dead"; A.9: the retraction filter scans the user's turn for markers). A turn that
only *mentions* a plan's end withdraws nothing:

* it weighs it — a question, a hedge or a condition anywhere in it ("should I cancel it?",
  "might drop it": `weighed`, the guards of `clauses.tentative`; §5 AV9, Appendix F);
* it denies it — a negated cancelling verb or verdict ("we haven't shelved the trip", "the
  cabin idea is not dead", "don't forget it": `denies_withdrawal`, over `clauses.denied_before`);
* somebody else says it, or nobody did — a verb of saying or thinking whose subject is not
  the user, or which is negated ("my wife thinks it is dead", "he told me to forget it",
  "nobody said it is dead"), a wish ("I wish it were dead"), or a withdrawal taken back
  ("scrap what I said about dropping it"): `voiced_by_another`;
* the plan is somebody else's — its owner named as its possessor ("my neighbour's treehouse
  idea is dead", "his plan is off"): `others_plan`.

Used at ingest by the markers (`retraction.find`, per marker) and the probe's candidate
(`withdrawal.withdrawal_fact`), and at query time by `workers/query/withdrawn.py` (the whole
turn: `not_the_users`). Closed grammatical classes only — negators, verbs of saying and
thinking, possessives — no wording of any plan. Deterministic: a function of the text.
"""

from __future__ import annotations

import re

from workers.extraction.clauses import (
    CLAUSE_START,
    denied_before,
    sentences,
    subject_is_user,
    tentative,
)
from workers.extraction.lexicon import words

_I = re.IGNORECASE

#: The cancelling verbs of the retraction markers, in every form, and "shelved", a verdict's
#: verb ("we haven't shelved the trip"), and "forget" (an imperative "forget it" withdraws;
#: "don't forget it" does not).
_CANCEL_VERB = re.compile(
    r"\b(?:scrap(?:s|ped|ping)?|scratch(?:ed|ing)?|ditch(?:ed|es|ing)?|nix(?:ed|ing)?"
    r"|shelv(?:e|ed|es|ing)|abandon(?:s|ed|ing)?|cancel(?:s|l?ed|l?ing)?|drop(?:s|ped|ping)?"
    r"|ax(?:e|ed|ing)|binn(?:ed|ing)|kill(?:s|ed|ing)?|dump(?:s|ed|ing)?|call(?:s|ed|ing)?\s+off"
    r"|call(?:s|ed|ing)?\s+(?:it|that|the\s+[\w'-]+)\s+off|(?:give|gave|given|giving)\s+up"
    r"|pull(?:s|ed|ing)?\s+(?:out|the\s+plug)|back(?:s|ed|ing)?\s+out|forget(?:ting)?)\b",
    _I,
)
#: The verdicts of the retraction markers that say a plan will not take place, in their
#: positive form ("dead", "off", "cancelled"): negated before them ("is not dead", "isn't
#: off") they deny it. "not happening" / "not going ahead" carry their own negation and are
#: verdicts, not denials, so they are not listed.
_VERDICT_WORD = re.compile(
    r"\b(?:dead|off(?!\s+\w)|done\s+for|cancell?ed|scrapped|a\s+no-?\s?go|history|toast"
    r"|called\s+off|axed|nixed)\b",
    _I,
)
#: Verbs of saying and thinking: what follows them is somebody's word, the user's only when
#: the user is their subject ("I said it's dead" — "my wife thinks it's dead" is hers).
_REPORTING = re.compile(
    r"\b(?:thinks?|thought|says?|said|saying|believes?|believed|reckons?|reckoned|claims?"
    r"|claimed|insists?|insisted|feels?|felt|suggests?|suggested|argues?|argued"
    r"|tells?\s+(?:me|us)|told\s+(?:me|us)|keeps?\s+saying)\b",
    _I,
)
#: Irrealis: a wish is no withdrawal ("I wish the trip were off", "if only it were dead").
_WISH = re.compile(r"\b(?:wish(?:es|ed|ing)?|if\s+only)\b", _I)
#: Taking a word back: the withdrawal word after it in its clause is what is taken back
#: ("ignore what I said about dropping the trip"), as after a cancelling verb ("scrap what I
#: said about cancelling it"): a withdrawal withdrawn, the plan reinstated.
_TAKE_BACK = re.compile(r"\b(?:ignore|disregard|take\s+back|took\s+back|taking\s+back)\b", _I)
#: Where a clause begins, scanning back from a word (as `clauses.tentative` cuts one).
_CLAUSE_START = CLAUSE_START
#: A capitalised word before "'s" that is a contraction or a time, not an owner ("Let's drop
#: the plan", "That's the plan", "Today's plan is off"): closed classes.
_NOT_AN_OWNER = (
    r"(?:let|it|that|this|what|there|here|he|she|who|where|everything|nothing|something"
    r"|today|tonight|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)['’]s\b"
)
#: A plan named with its owner, who is not the user: "his/her/their/your plan", "my
#: neighbour's treehouse idea", "Tom's plan" (the possessive names whose idea it is; "my
#: daughter's party is off" names whose party, not whose plan, and stays the user's).
_OTHERS_PLAN = re.compile(
    r"\b(?:(?:his|her|their|your)\s+(?:[\w'-]+\s+){0,3}"
    r"|(?:(?:my|our)\s+[\w-]+|(?!" + _NOT_AN_OWNER + r")(?-i:[A-Z])[\w-]+)['’]s\s+"
    r"(?:[\w'-]+\s+){0,3})"
    r"(?:idea|ideas|plan|plans|project|scheme|dream)\b",
    _I,
)


def weighed(text: str) -> bool:
    """Whether any sentence of the turn is a question, or hedges or sets a condition
    ("should I cancel it?", "might drop it", "if the visa fails I'll give up"): a turn that
    only weighs a withdrawal makes none (§5 AV9, Appendix F)."""
    for sentence in sentences(text):
        s = sentence.strip()
        if s.endswith("?") or tentative(s, 0, len(s), within=True):
            return True
    return False


def hedged(text: str) -> bool:
    """Whether some sentence of the turn, not a question, hedges or sets a condition ("maybe
    when the kids are grown", "thinking about going to 65 an hour", "if the visa comes
    through"): the turn weighs something. Unlike `weighed`, a question to the assistant beside
    a statement ("moved to Leeds last week. any tips?") weighs nothing."""
    for sentence in sentences(text):
        s = sentence.strip()
        if s and not s.endswith("?") and tentative(s, 0, len(s), within=True):
            return True
    return False


#: Words a chat sentence of greeting, thanks, reaction or filler is made of ("Hi!", "Thanks so
#: much!", "Ugh.", "Or not.", "Ok cool."): such a sentence states nothing (review r18 M1).
_INTERJECTION = frozenset(
    words(
        "hi hey hello hiya morning evening good thanks thank you so much very ok okay k cool "
        "great nice ugh argh meh lol haha hmm hm oh ah wow yes yeah yep no nope nah or not well "
        "right sure anyway bye cheers please sorry"
    )
)
_WORD = re.compile(r"[a-z']+")


def _states_something(sentence: str) -> bool:
    """Whether a sentence has the words to state something: at least two ("Quit smoking."),
    not all of them greeting, thanks, reaction or filler (`_INTERJECTION`)."""
    tokens = _WORD.findall(sentence.lower())
    return len(tokens) >= 2 and not all(t in _INTERJECTION for t in tokens)


def asserts(text: str) -> bool:
    """Whether some sentence of the turn states something and is neither a question nor
    hedged nor conditional: a plan stated, then a question to the assistant about it, is
    stated (B6 reads the sentence that states it, not the question beside it); "Hi!" or
    "Ugh." before a question states nothing (review r18 M1)."""
    for sentence in sentences(text):
        s = sentence.strip()
        if (
            s
            and not s.endswith("?")
            and not tentative(s, 0, len(s), within=True)
            and _states_something(s)
        ):
            return True
    return False


def denies_withdrawal(text: str) -> bool:
    """Whether a sentence of `text` negates a cancelling verb or a verdict, or only reports
    weighing one ("we haven't shelved the trip", "the cabin idea isn't dead", "I thought about
    dropping it but no"): the plan stands, whatever the withdrawal probe reads in the turn's
    vector (it cannot see negation)."""
    return any(
        denied_before(s, m.start())
        for s in sentences(text)
        for pattern in (_CANCEL_VERB, _VERDICT_WORD)
        for m in pattern.finditer(s)
    )


def voiced_by_another(sentence: str, start: int) -> bool:
    """Whether the withdrawal word at `sentence[start:]` is, in its clause, somebody else's
    word or nobody's: after a verb of saying or thinking whose subject is not the user or
    which is negated ("my wife thinks the trip is off", "nobody said it is dead", "I never
    said it's off"), after a wish ("I wish it were dead"), or taken back by a word before it
    ("scrap what I said about dropping it", "ignore what I said about cancelling")."""
    before = sentence[:start]
    cuts = [m.end() for m in _CLAUSE_START.finditer(before)]
    clause = before[cuts[-1] if cuts else 0 :]
    if _WISH.search(clause) or _TAKE_BACK.search(clause) or _CANCEL_VERB.search(clause):
        return True  # a wish; or a withdrawal taken back ("scrap what I said about dropping it")
    return any(
        denied_before(clause, m.start()) or not subject_is_user(clause, m.start())
        for m in _REPORTING.finditer(clause)
    )


def voiced_span(sentence: str, start: int, end: int) -> bool:
    """`voiced_by_another` for a marker found at `sentence[start:end]`, read at its first
    withdrawal word (a verdict marker may begin with its subject: "nobody said the cabin idea
    is dead" is matched from "nobody")."""
    words = [
        m.start() for p in (_CANCEL_VERB, _VERDICT_WORD) for m in p.finditer(sentence, start, end)
    ]
    return voiced_by_another(sentence, min(words, default=start))


def others_plan(text: str) -> bool:
    """Whether `text` names a plan as somebody else's ("my neighbour's treehouse idea", "her
    plan"): its end is not the user's retraction."""
    return _OTHERS_PLAN.search(text) is not None


def not_the_users(text: str) -> bool:
    """Whether a turn read as a withdrawal (by the probe, which cannot see who speaks or
    whether it is denied) is no withdrawal of the user's own: it weighs or denies one, or a
    withdrawal word of it is voiced by another or said of another's plan."""
    if weighed(text) or denies_withdrawal(text):
        return True
    for s in sentences(text):
        for pattern in (_CANCEL_VERB, _VERDICT_WORD):
            for m in pattern.finditer(s):
                if voiced_by_another(s, m.start()) or others_plan(_clause_of(s, m.start())):
                    return True
    return False


#: A copula right before a verdict word makes it one ("the trip is cancelled", "got axed").
_COPULA_BEFORE = re.compile(
    r"\b(?:is|was|are|were|be|been|being|'s|got|gets|getting)\s+(?:now\s+|just\s+|all\s+)?$",
    _I,
)


def users_own_marker(text: str) -> bool:
    """Whether a withdrawal word of the turn is the user's own act or verdict: a cancelling
    verb whose subject is the user ("we cancelled the trip", "scrapped the boat plan") or a
    verdict on the plan ("the boat plan is dead"). "The airline cancelled my flight, so I
    rebooked" has the marker's word but another's act: the user's plan stands (review r18 H2)."""
    for s in sentences(text):
        acts = {m.start() for m in _CANCEL_VERB.finditer(s)}
        if any(subject_is_user(s, at) for at in acts):
            return True
        # A verdict that is no other's act: "cancelled" after a subject ("the airline
        # cancelled …") is that subject's verb, not a verdict on the plan.
        if any(
            m.start() not in acts or _COPULA_BEFORE.search(s, 0, m.start())
            for m in _VERDICT_WORD.finditer(s)
        ):
            return True
    return False


def _clause_of(sentence: str, start: int) -> str:
    """The clause of `sentence` that holds position `start`."""
    cuts = [m.end() for m in _CLAUSE_START.finditer(sentence[:start])]
    stop = _CLAUSE_START.search(sentence, start)
    return sentence[cuts[-1] if cuts else 0 : stop.start() if stop else len(sentence)]
