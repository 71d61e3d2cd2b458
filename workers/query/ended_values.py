"""A newer turn that says an older turn's value is over: "the oil boiler's gone", "sold the
Proton", "no more kebabs", "I left Kooistra", "the sandwich era is over".

The paper's own changes are told this way as often as by naming the new value (Table 13:
"Left Google, joining Anthropic", "stopped the bear tours", "I've had to give up the
garden"), and A.7.1 supersedes the old value whatever the new one's wording. The mark is
pair-specific: the word the ending is said of must be a word of the *older* turn, next to the
ending predicate in one clause — the newer turn names what it ends — so a turn that ends
something else ("stopped by the bakery", "finished the report") marks nothing about it.

Two grammatical shapes (no list of values):
* the ending predicate before its object: "sold / scrapped / ditched / binned / swapped /
  traded in / got rid of / quit / left / gave up / done with / no more / gone off / stopped
  / I'm over" + up to `_REACH` words + the older turn's word;
* the older turn's word as the subject, up to `_REACH` words before a predicate of ending:
  "… gone / over / history / dead / finished / retired / sold / binned / scrapped / done /
  ended".

`newer_statements._presses` reads it as a mark of change for that pair (like a newer turn
that says "now"), so the σ condition is waived and the low-cosine tie may apply
(`newer_statements.ended_value_marks`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from workers.text.bm25 import tokenize

#: How many words may stand between the predicate and the older turn's word ("sold *the old
#: blue* Proton", "the *saffron buns are* history").
_REACH = 3

#: Predicates that end what follows them. Multi-word ones are matched word by word.
_ENDS_WHAT_FOLLOWS: tuple[tuple[str, ...], ...] = tuple(
    tuple(p.split())
    for p in (
        "sold", "scrapped", "ditched", "dumped", "binned", "swapped", "traded",
        "rid of", "quit", "quitting", "left", "gave up", "given up", "giving up",
        "done with", "wrote off", "written off", "moved out of", "moved away from",
        "no more", "gone off", "went off", "stopped", "am over", "i'm over", "we're over",
    )
)  # fmt: skip
#: Predicates that end their subject ("the Aygo's gone", "matcha is dead to me").
_ENDS_WHAT_PRECEDES = frozenset(
    {"gone", "over", "history", "dead", "finished", "retired", "sold", "binned", "scrapped",
     "done", "ended"}
)  # fmt: skip
#: "stopped by the bakery", "left for work", "left at six": a visit or a departure, no end.
_NOT_AN_END_AFTER = frozenset({"by", "at", "in", "for", "to", "off", "over", "behind", "early"})

#: What links a subject to its ending.
_LINKS = frozenset(
    {"is", "are", "'s", "was", "were", "=", "been", "got", "get", "has", "have", "had", "'ve"}
)
_MOTION = frozenset({("stopped",), ("left",)})

#: A clause of the newer turn: the word and the ending must be said together.
_CLAUSE = re.compile(r"[^.!?\n;:()—–,]+")
_WORD = re.compile(r"[a-z0-9][a-z0-9'’&-]*|=")


@lru_cache(maxsize=16384)  # a vocabulary: the same words recur across every pair of a query
def _stems(word: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(word) if t.isalpha() and len(t) >= 4)


@lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(text) if t.isalpha() and len(t) >= 4)


def _matches(words: tuple[str, ...], at: int, predicate: tuple[str, ...]) -> bool:
    return words[at : at + len(predicate)] == predicate


#: `_ENDS_WHAT_FOLLOWS` by first word: a word is checked against the predicates it can open.
_OPENED_BY: dict[str, tuple[tuple[str, ...], ...]] = {}
for _predicate in _ENDS_WHAT_FOLLOWS:
    _OPENED_BY[_predicate[0]] = (*_OPENED_BY.get(_predicate[0], ()), _predicate)


@lru_cache(maxsize=4096)
def _clauses(newer: str) -> tuple[tuple[str, ...], ...]:
    """The newer turn's clauses as words, read once for every older candidate it meets."""
    return tuple(
        tuple(_split_possessives(_WORD.findall(clause)))
        for clause in _CLAUSE.findall(newer.lower().replace("’", "'"))
    )


@lru_cache(maxsize=8192)
def says_ended(older: str, newer: str) -> bool:
    """Whether `newer` says something named in `older` is over (the module's two shapes)."""
    named = _content(older)
    if not named:
        return False
    for words in _clauses(newer):
        for i in range(len(words)):
            for predicate in _OPENED_BY.get(words[i], ()):
                if not _matches(words, i, predicate):
                    continue
                after = words[i + len(predicate) : i + len(predicate) + 1 + _REACH]
                if after and after[0] in _NOT_AN_END_AFTER and predicate in _MOTION:
                    continue
                if any(_stems(w) & named for w in after):
                    return True
            if words[i] in _ENDS_WHAT_PRECEDES and _said_of(words, i, named):
                return True
    return False


def _said_of(words: tuple[str, ...], at: int, named: frozenset[str]) -> bool:
    """Whether the ending at `at` is said of a named word before it: through a copula ("the
    Aygo's gone", "matcha is dead", "the pizza oven is officially dead", "the noodles got
    binned", "sandwiches = over", "Quibell has retired") or right after it ("porridge
    retired", "Matiz sold"). A perfect's "done" ("I'll have done my swim") or a verb's
    "over" ("keeps falling over") is no ending."""
    before = words[at - 1] if at else ""
    if before in _LINKS:
        subject_end = at - 1
    elif at >= 2 and words[at - 2] in _LINKS and before.endswith("ly"):
        subject_end = at - 2
    else:
        return bool(_stems(before) & named)
    if words[at] == "done" and before in {"have", "'ve", "had", "'d"}:
        return False
    return any(_stems(w) & named for w in words[max(0, subject_end - _REACH) : subject_end])


def _split_possessives(words: list[str]) -> list[str]:
    """ "aygo's" → "aygo", "'s": the subject and its verb ("the Aygo's gone")."""
    out: list[str] = []
    for w in words:
        if w.endswith("'s") and len(w) > 2:
            out.extend((w[:-2], "'s"))
        else:
            out.append(w)
    return out
