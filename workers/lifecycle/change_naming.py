"""A later change statement that names an earlier unslotted turn's value supersedes it (issue 11).

What no pattern extracted stays only as its raw turn ("I'm an ML engineer at Google, Gemini
memory team"); when the user later says the value changed ("I left Google last month and
joined Anthropic"), nothing supersedes the old turn: it has no slot, and slot association
(workers/lifecycle/association.py) only lets a free edge join a slot filled *before* it.
The old turn's cosine to the change turn (0.29–0.59 on the paper turns) overlaps that of
unrelated turns (0.41 at p99): similarity alone cannot tell them apart. What does is that a
change statement usually repeats a word of the value it ends — the paper's own transitions
(Table 1: "Works at Google" → "Joined Anthropic"; Appendix F) are told "I left Google",
"gave up gardening", "forget the Husky Lakes camp", "switched from X".

So an earlier free edge (no slot key, no facts of its own turn; `association.is_free`) is
superseded by a later edge of the same user, from another turn, that *names* it: a change
verb of the cessation family (quit, left, gave up, stopped, dropped, abandoned, cancelled,
forget the, no longer, switched from, moved from, broke up with, handed in my notice at, I'm
over …) or, in the other word order, an ending said of its subject ("the thesis is officially
behind me", "the tram era is over", "Alex and I broke up"), not negated ("I'll never
forget the day …"), whose object — up to five words after it, to the clause's end; the
subject: up to three words before it, from the clause's start — shares
a content word (BM25 tokens: stemmed, stopwords out) with the old edge, at cosine ≥
`association.change_named_cosine`. The earliest such statement (by ingest time, then edge
id) supersedes; the decision is recorded in the fact's lifecycle (`named_by`) and shown in
`why`.

Left out, measured: a replacement cue without a named object ("… bonsoy oat instead",
"switched", "changed") with a word in common anywhere. On LoCoMo dev it superseded hundreds
of unrelated turns (turns of one speaker share the speaker's name and sit at cosine
0.5–0.6), so no cosine threshold separates them from the held-out paper turn it would fix.

Like association, this is a function of the edge set: whether an edge is superseded depends
only on it and on the user's edges ingested after it, never on arrival order. Bookkeeping
(pseudo-slots of the slot index): the user's change statements (`CHANGES`, to find, when
an old edge arrives late, the statements after it), and per
slot the statements that may name its members (`NAMED_PREFIX`; a cache, re-checked whenever
the slot is resolved). Free edges are found through association's month lists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import ChangeMention
from workers.extraction.clauses import fold_apostrophes, negation_before, tentative
from workers.lifecycle.association import (
    FREE_PREFIX,
    PSEUDO_PREFIX,
    Associations,
    free_key,
    is_free,
)
from workers.lifecycle.rules import group_key
from workers.ports import SlotIndex
from workers.text.bm25 import tokenize
from workers.text.heads import words_by_head

CHANGES = PSEUDO_PREFIX + "changes"
NAMED_PREFIX = PSEUDO_PREFIX + "named:"

#: Cessation verbs and phrases whose object is the value that ended.
_NAMING = re.compile(
    r"\b(?:quit(?:ting)?|g[ai]ve up(?: on)?|giving up(?: on)?|stopped"
    # "left Google", not "left in the photo", "left for Paris", "left it there"
    r"|left(?! (?:in|on|at|behind|over|out|to|for|with|from|by|of|it)\b)"
    r"|dropped(?! off| by)|ditched|abandoned|sold|cancell?ed|called off|scrapp?(?:ed)?"
    r"|forget (?:about )?(?:all )?(?:the|my|our)|done with|moved (?:away )?from|moved out of"
    r"|switched (?:away )?from|broke up with|split (?:up )?(?:with|from)|no longer|no more"
    r"|retired from|resigned from|(?:handed|put|gave) in (?:my )?notice (?:at|to|with)"
    # "I'm over pizza" (done with it), not "I'm over at Jen's", "over the moon", "over it"
    r"|(?:im|i am) (?:(?:so|totally|completely|officially|just|kinda|really) )*over"
    r"(?! (?:at|in|on|to|for|there|here|it|this|that|the moon)\b))\s+([^,.;:!?()\"]+)"
)
#: What ended said as the subject (the thing first, then that it is over): "the thesis is
#: officially behind me", "the tram era is over", "tash and me ended a while back", "Alex
#: and I broke up" — the same cessation, the other word order. Not "dead" (a plan's verdict
#: is a retraction marker; a person's death is not a change of value) nor "done" ("the cake
#: is done"); a negation cannot sit in it ("isn't over", "is not over" do not match).
#: A couple parting: "… broke up", "… split", "… ended it", "… called it quits".
_PARTED = (
    r"(?:(?:finally|officially|just|have|had)\s+)*"
    r"(?:broke\s+up|split(?:\s+up)?|ended(?:\s+it|\s+things)?|called\s+it\s+quits"
    r"|parted\s+ways|are\s+(?:done|over|finished|through))"
)
_ENDED_SUBJECT = re.compile(
    rf"(?:\s+and\s+(?:i|me)\s+{_PARTED}"
    r"|\s+(?:is|was|are|were|has\s+been|have\s+been)\s+"
    r"(?:(?:officially|finally|really|totally|completely|so|all|now|long|well\s+and\s+truly)\s+)*"
    r"(?:over|behind\s+(?:me|us)|finished|history|a\s+thing\s+of\s+the\s+past"
    r"|off\s+the\s+table|out\s+of\s+the\s+picture)"
    # "is over there", "was over at Sam's"; but "is over for me" is an ending
    r"(?!\s+(?:there|here|the|a|an|my|to|at|with|in|on)\b)(?!\s+for\s+(?!me\b|us\b)))\b"
)
#: The same parting with the user first: "me and soph ended a while back" (the subject is
#: the one or two words after "me and").
_PARTED_FROM = re.compile(rf"\b(?:me|i)\s+and\s+(\w+(?:\s+\w+)?)\s+{_PARTED}\b")
#: A continuation denied: "not dispatching anymore", "I don't eat meat any more" — the
#: aspectual negation family of "no longer" / "no more" (Appendix F's "no longer" change),
#: with what stopped between the denial and "anymore": the verb's object, or, when the verb
#: has none, the activity itself (a gerund). "can't stand it anymore" names nothing.
_NOT_ANYMORE = re.compile(
    r"\b(?:not|dont|doesnt|didnt|cant|cannot|wont|isnt|arent|never)\s+"
    r"((?:[\w-]+\s+){0,4}?)(?:any\s?more|any\s+longer)\b"
)
#: A denial that is itself an ending of the list: the "no" of "no more nights, no more …".
_LISTED_ENDING = re.compile(r"no (?:more|longer)\b")
#: Gerunds of light verbs name no activity: "not going anymore", "not doing it anymore".
_LIGHT_VERBS = frozenset(["going", "doing", "having", "being", "getting", "making", "taking"])
#: Where a subject begins: the clause's start.
_SUBJECT_START = re.compile(r"[.!?;:,()\n\"]|\b(?:but|so|because|since|then|after|when)\b")
#: At most this many words before an ending predicate name what ended.
_SUBJECT_WORDS = 3
#: A cessation said not to happen ("I'll never forget the day …", "not gonna give up").
_NEGATED = negation_before(within_words=2, ever=True)
#: Where an object ends: the next clause.
_CLAUSE = re.compile(r"\b(?:and|but|so|because|since|then|after|when|which|who)\b")
#: At most this many words of an object name the old value ("left Google last month").
_OBJECT_WORDS = 5
#: When, not what: "we left Berlin last month" names Berlin, not every turn said "last
#: Saturday" (on the generator's test phrasings "last" alone superseded 10 unrelated turns).
_WHEN = frozenset(
    tokenize(
        "last next past previous recent recently month week year day weekend today tonight"
        " yesterday tomorrow morning afternoon evening night ago monday tuesday wednesday"
        " thursday friday saturday sunday"
        # how, not what: the head of "quit smoking finally" is smoking
        " finally already completely entirely altogether forever again anymore too also"
    )
)


@dataclass(frozen=True, slots=True)
class Naming:
    """A change statement that supersedes an earlier free edge: which, by which words of
    what it says ended, and how closely the two match."""

    by: EdgeEvent
    words: tuple[str, ...]
    score: float

    def record(self) -> ChangeMention:
        return ChangeMention(by=self.by.edge_id, words=self.words, similarity=round(self.score, 4))


#: Container nouns that name no thing of their own: in "the puppy stuff", "the dog thing",
#: "the ubc idea", "the tram era" the thing is the word before them (the head rule would
#: otherwise ask the old turn for "stuff").
_CONTAINERS = frozenset(
    tokenize("thing things stuff idea ideas plan plans business situation era phase deal")
)
#: How much of it, not what: "the whole wedding thing".
_AMOUNT = frozenset(tokenize("whole entire"))


def _thing(words: tuple[str, ...]) -> tuple[str, ...]:
    """A named thing without amount words and trailing container nouns; nothing when that
    is all it says ("forget the whole thing", like "it", names what the context does)."""
    kept = tuple(w for w in words if w not in _AMOUNT)
    while kept and kept[-1] in _CONTAINERS:
        kept = kept[:-1]
    return kept


def named_objects(text: str) -> list[tuple[str, ...]]:
    """The content words of each thing a change statement says ended, its head (the noun
    phrase's last word) last ("I left Google last month and joined Anthropic" → (googl,);
    time words are not values); none from a negated one ("I'll never forget the day …") or a
    tentative one ("thinking about quitting my job", "should I drop the class?")."""
    lowered = fold_apostrophes(text)
    out: list[tuple[str, ...]] = []
    for found in _NAMING.finditer(lowered):
        denied = _NEGATED.search(lowered[max(0, found.start() - 40) : found.start()])
        if denied and not _LISTED_ENDING.match(lowered, denied.start()):
            continue  # "no more nights, no more rotating": a list of endings, not a denial
        if tentative(lowered, found.start(), found.end()):
            continue  # "kinda thinking about quitting my job": both values stand (Appendix F)
        obj = _CLAUSE.split(found.group(1))[0]
        words = _thing(
            tuple(w for w in tokenize(" ".join(obj.split()[:_OBJECT_WORDS])) if w not in _WHEN)
        )
        if words:
            out.append(words)
    for found in _NOT_ANYMORE.finditer(lowered):
        if tentative(lowered, found.start(), found.end()):
            continue
        said = _CLAUSE.split(found.group(1))[0].split()
        if len(said) == 1 and (not said[0].endswith("ing") or said[0] in _LIGHT_VERBS):
            continue  # a verb alone names no thing, but an activity does ("not dispatching")
        obj = said if len(said) == 1 else said[1:]
        words = _thing(tuple(w for w in tokenize(" ".join(obj)) if w not in _WHEN))
        if words:
            out.append(words)
    subjects: list[tuple[re.Match[str], list[str]]] = []
    for found in _ENDED_SUBJECT.finditer(lowered):
        before = lowered[: found.start()]
        cuts = [m.end() for m in _SUBJECT_START.finditer(before)]
        subjects.append((found, before[cuts[-1] if cuts else 0 :].split()[-_SUBJECT_WORDS:]))
    subjects += [(found, found.group(1).split()) for found in _PARTED_FROM.finditer(lowered)]
    for found, subject in subjects:
        if tentative(lowered, found.start(), found.end()):
            continue  # "maybe the thesis is finally over?" is weighed, not said
        # A pronoun or a bare time ("it's over", "that is behind me") names nothing.
        words = _thing(tuple(w for w in tokenize(" ".join(subject)) if w not in _WHEN))
        if words:
            out.append(words)
    return out


def named_words(text: str) -> frozenset[str]:
    """Every content word of what a change statement says ended (`named_objects`)."""
    return frozenset(w for words in named_objects(text) for w in words)


#: Modifiers that pick out *another* instance of the head: "the second shop" is not "my
#: shop", "the new job" not the job the user had. A named thing with one of them names only a
#: turn that says it too.
_OTHER_INSTANCE = frozenset(
    tokenize("second third fourth fifth 2nd 3rd new extra additional spare another different")
)


def shared_words(change_text: str, old_text: str) -> frozenset[str]:
    """The words by which a change statement names an earlier turn: those of each named
    thing whose *head* the earlier turn says ("moved from my home country" names a turn
    about a country, not every turn with "a loving home" in it — a LoCoMo false
    supersession; "stopped doing the bear tours" names "I run polar bear tours"), unless
    the thing is marked as another instance the turn does not say ("forget about the second
    shop" does not name "this year's prices at my shop")."""
    said = set(tokenize(old_text))
    things = [words for words in named_objects(change_text) if _OTHER_INSTANCE & set(words) <= said]
    return words_by_head(things, said)


def is_change(edge: EdgeEvent) -> bool:
    """Whether `edge` states a change (it may supersede earlier free edges): a raw turn — the
    user's own words, not an extractor's paraphrase of them (a rule's misreading, "User
    stopped meetings" for "the meetings went really well", superseded 3 unrelated LoCoMo
    turns) — that names something as ended."""
    return (
        edge.episodic
        and not edge.quarantined
        and edge.embedding is not None
        and bool(named_words(edge.text))
    )


def _before(a: EdgeEvent, b: EdgeEvent) -> bool:
    return (a.ingest_time, a.edge_id) < (b.ingest_time, b.edge_id)


def names(change: EdgeEvent, old: EdgeEvent, policy: Policy) -> Naming | None:
    """Whether `change` supersedes the free edge `old` (see the module docstring)."""
    if (
        change.user_id != old.user_id
        or not is_free(old)
        or not _before(old, change)
        or not is_change(change)
        or change.embedding is None
        or old.embedding is None
        or change.embedding.model != old.embedding.model
        or set(change.source_turns) & set(old.source_turns)
    ):
        return None
    named = shared_words(change.text, old.text)
    if not named:
        return None
    # In float64, one pair at a time: the same score whatever batch the pair is seen in.
    a = change.embedding.to_array().astype(np.float64)
    b = old.embedding.to_array().astype(np.float64)
    score = float(a @ b)
    if score < policy.association.change_named_cosine:
        return None
    return Naming(change, tuple(sorted(named)), score)


def first_naming(old: EdgeEvent, changes: Sequence[EdgeEvent], policy: Policy) -> Naming | None:
    """The earliest of `changes` that supersedes `old`."""
    for change in sorted(
        {c.edge_id: c for c in changes}.values(), key=lambda c: (c.ingest_time, c.edge_id)
    ):
        found = names(change, old, policy)
        if found is not None:
            return found
    return None


class ChangeNaming:
    """The change-statement bookkeeping of one `LifecycleService` over its slot index (and
    the association bookkeeping over the same index: where a free edge's state is decided)."""

    def __init__(self, slots: SlotIndex, policy: Policy, associations: Associations) -> None:
        self._slots = slots
        self._policy = policy
        self._associations = associations

    def _placed(self, edge: EdgeEvent) -> list[str]:
        """The slots where a free edge's state is decided: its own, or the keyed slot
        association gave it."""
        return [group_key(edge), *self._associations.related_slots(edge)]

    def on_apply(self, edge: EdgeEvent) -> list[str]:
        """Record `edge`; returns the slots whose state it may change."""
        user = edge.user_id
        touched: list[str] = []
        if is_change(edge):
            self._slots.add(user, CHANGES, edge)
            for old in self._free_before(user, edge):
                if names(edge, old, self._policy) is not None:
                    self._slots.add(user, NAMED_PREFIX + group_key(old), edge)
                    touched += self._placed(old)
        if is_free(edge):
            # A late old edge: the statements ingested after it (delivered before it).
            for change in self._changes_after(user, edge):
                if names(change, edge, self._policy) is not None:
                    self._slots.add(user, NAMED_PREFIX + group_key(edge), change)
                    touched += self._placed(edge)
        return touched

    def naming(self, edge: EdgeEvent) -> Naming | None:
        """The change statement that supersedes the free edge `edge`, if any."""
        if not is_free(edge):
            return None
        cached = self._slots.members(edge.user_id, NAMED_PREFIX + group_key(edge))
        return first_naming(edge, cached, self._policy) if cached else None

    def related_slots(self, edge: EdgeEvent) -> list[str]:
        """The slots of the free edges a change statement supersedes."""
        if not is_change(edge):
            return []
        out: list[str] = []
        for old in self._free_before(edge.user_id, edge):
            if names(edge, old, self._policy) is not None:
                out += self._placed(old)
        return list(dict.fromkeys(out))

    def _free_before(self, user: str, change: EdgeEvent) -> list[EdgeEvent]:
        month = free_key(change)
        keys = sorted(s for s in self._slots.slots(user) if s.startswith(FREE_PREFIX))
        return [
            e
            for key in keys
            if key <= month
            for e in self._slots.members(user, key)
            if _before(e, change)
        ]

    def _changes_after(self, user: str, old: EdgeEvent) -> list[EdgeEvent]:
        # One list: change statements are rare (1 of LoCoMo dev's 2,760 turns), and every
        # free edge reads it — listing the user's slots here would cost O(slots) per edge.
        return [c for c in self._slots.members(user, CHANGES) if _before(old, c)]
