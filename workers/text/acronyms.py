"""Acronyms a turn defines in passing: "a United Church of Christ minister … moved to the UCC".

A fact cut from one clause keeps only the short form ("User has moved to the UCC"), and an
embedding knows nothing of most acronyms: the prototype classifier then reads the verb
("moved to" → a city) instead of what was joined (a church). When the same turn spells the
long form out, the fact can carry it (issue 11: classification that does not depend on the
exact wording). Only a long form found in the turn is used: nothing is guessed.
"""

from __future__ import annotations

import re

#: An acronym: two to six capitals ("UCC", "NHS"), optionally with a plural "s".
_ACRONYM = re.compile(r"\b(?P<a>[A-Z]{2,6})s?\b")
#: Words a long form may hold without an initial ("Church *of* Christ", "Bank *of* America").
_SKIPPED = frozenset({"of", "the", "and", "for", "in", "at", "on", "de", "la", "&"})
_WORD = re.compile(r"[A-Za-z&][\w'&-]*")


def long_forms(text: str) -> dict[str, str]:
    """Each acronym of `text` whose long form `text` also spells out, capitalised."""
    wanted = {m["a"] for m in _ACRONYM.finditer(text)}
    if not wanted:
        return {}
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]
    found: dict[str, str] = {}
    for acronym in wanted:
        for start in range(len(words)):
            end = _spells(words, start, acronym)
            if end is not None:
                found[acronym] = text[words[start][1] : words[end][2]]
                break
    return found


def _spells(words: list[tuple[str, int, int]], start: int, acronym: str) -> int | None:
    """The index of the last word if the capitalised words from `start` spell `acronym`."""
    letter = 0
    for i in range(start, len(words)):
        word = words[i][0]
        if letter == len(acronym):
            return i - 1
        if word.lower() in _SKIPPED and letter > 0:
            continue
        if word[0] != acronym[letter] or not word[0].isupper() or word.isupper():
            return None
        letter += 1
    return len(words) - 1 if letter == len(acronym) else None


def expanded(text: str, forms: dict[str, str]) -> str:
    """`text` with each defined acronym replaced by its long form."""
    if not forms:
        return text
    return _ACRONYM.sub(lambda m: forms.get(m["a"], m.group(0)), text)
