"""A newer turn that says its value replaced an earlier one (issue 11, round 25, r25-av1).

`newer_statements` lets a newer raw turn lead an older candidate whatever its σ when the user
*marked* the change (`turn_says_now`, issue-11aa): A.7.3 orders two versions for q_cur when
the change is said, and Appendix F keeps a weighed change from standing. Its mark is a
present-time word against before ("… now", "these days", "no longer", `says_now`). English
says a change as often with the change itself as with the time of the new value:

* a verb of replacing one value by another, told as done, with its goal or source —
  "switched to oat milk", "swapped back to paper", "changed over to nights" (a plan to
  switch is no value yet; "swapped the car for a bike" names its goal after the object and
  is not read);
* the change stated of the thing with no object — "it's changed: …", "things have changed";
  a transitive "changed" ("it changed my life", "changed the tyres") says nothing replaced
  the user's value and is not read;
* a sentence opened by the label of a correction ("Correction: …", "Correction to my …"):
  the user says an earlier statement no longer holds.

Each only in a clause that is not a question ("have you switched to decaf?" states nothing),
as `says_now` reads its words. The validation stale answers this reaches (round 25, AV1) had
the newer version shown beside the older one and kept behind it by σ: the newer wording is
the weaker match for a question asked in the old value's words (docs/extraction.md, "Round 25
(r25-av1)"). A pure function of the text.
"""

from __future__ import annotations

import re

#: A verb of replacing, told as done (past or perfect: "switching to nights next month" is a
#: plan, not the value now), with its goal or source: "switched to", "swapped back to",
#: "changed over to", "switched from".
_REPLACED = r"\b(?:switched|swapped|changed)\s+(?:(?:it|over|back)\s+){0,2}(?:to|from)\b"
#: "changed" with no object, ending its clause: "it's changed", "things have changed".
_CHANGED = r"(?:\b(?:has|have|had)|'s|\u2019s)\s+(?:all\s+)?changed\s*[.!]*$"
#: A correction's label opening the clause ("Correction:", "Small correction to my …").
_CORRECTION = r"^\W*(?:(?:a|one|small|quick|slight|little)\s+){0,2}correction\b"
CHANGE = re.compile(rf"{_REPLACED}|{_CHANGED}|{_CORRECTION}", re.I)
#: A clause, as `newer_statements` reads one for `says_now`: split at sentence stops, commas,
#: colons, brackets and dashes, keeping a question mark that ends it.
_CLAUSE = re.compile(r"[^.!?\n,;:()\u2014\u2013]+[.!?]*")


#: Round 26 — a state told in the present perfect as holding from a past change up to now,
#: "since" closing its sentence part: "I've cycled in ever since", "we've lived there since
#: then", "got a bike in May and I've ridden it daily since". The perfect with "since" says
#: the new value has held from the change to the time of speaking, as "now" does.
_SINCE = re.compile(
    r"(?:\b(?:have|has)|['\u2019](?:ve|s))\s+[^.!?;]{1,80}?\s(?:ever\s+)?since(?:\s+then)?"
    r"\s*[.!;,]*$",
    re.I,
)
#: A `_SINCE` part whose subject is an indefinite quantity or a dummy — "a lot has happened
#: since then", "so much has changed since", "things have been mad since", "it's been quiet
#: ever since" — says no value of the user's holds: it is catching up, not a change to a new
#: value (round 27: 4 of the 6 LoCoMo dev turns round 26's mark read were such greetings).
_NO_HOLDER = re.compile(
    r"^\s*(?:(?:and|but|so|well|oh|wow|yeah|honestly|man)\s*,?\s+)*(?:a\s+lot|lots|loads|tons"
    r"|heaps|plenty|(?:so|too|very)\s+much|much|not\s+much|nothing|something|everything"
    r"|a\s+(?:few|couple\s+of)\s+things|things|stuff|life|it|there)(?:\s+of\s+\w+)?"
    r"\s*(?:\b(?:have|has)\b|['\u2019](?:ve|s)\b)",
    re.I,
)
#: A sentence part for `_SINCE`: up to a sentence stop, a semicolon, a comma or a line break.
_PART = re.compile(r"[^.!?;,\n]+[.!?;,]*")


def says_changed(text: str) -> bool:
    """Whether a turn says its value replaced an earlier one (`CHANGE`) in a clause that is not
    a question, or holds since a change up to now (`_SINCE`, in a sentence part that is not a
    question)."""
    return any(
        CHANGE.search(clause.strip()) is not None and not clause.rstrip().endswith("?")
        for clause in _CLAUSE.findall(text)
    ) or any(
        _SINCE.search(part.strip()) is not None
        and not part.rstrip().endswith("?")
        and _NO_HOLDER.match(part) is None
        for part in _PART.findall(text)
    )


#: The replaced value a change names: "switched from <X> to …", "changed over from <X>" — the
#: words after "from" up to "to" or the clause's end.
_SOURCE = re.compile(
    r"\b(?:switched|swapped|changed)\s+(?:(?:it|over|back)\s+){0,2}from\s+(.+?)(?:\s+to\b|$)",
    re.I,
)
_WORD = re.compile(r"[a-z]{4,}")


def replaced_words(text: str) -> frozenset[str] | None:
    """The content words (their first five letters) of the value a said change names as
    replaced ("I switched from pescatarian to …" → {"pesca"}), or None where it names none.
    Such a change is about that value: it leads only a statement that says it (round 25: a
    diet's change pressed a food allergy, a pub drink's change a home)."""
    words = {
        w[:5]
        for clause in _CLAUSE.findall(text)
        if not clause.rstrip().endswith("?")
        for m in _SOURCE.finditer(clause.strip())
        for w in _WORD.findall(m.group(1).lower())
    }
    return frozenset(words) or None


def names_other(newer_text: str, older_text: str) -> bool:
    """Whether the newer turn's said change names a replaced value the older text never says."""
    source = replaced_words(newer_text)
    if source is None:
        return False
    return source.isdisjoint(w[:5] for w in _WORD.findall(older_text.lower()))
