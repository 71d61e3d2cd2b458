"""Value families of a change said without the usual frame: no subject, or the user as object.

`patterns_values` finds a value after "I switched to", "my X is", "I'm back on"; chat often
drops the subject and the verb ("day shifts now"), or lets someone else make the change ("they
put me on nights"). Both say a new current value (paper Table 1: a change supersedes), but not
what it is about: like the other value families these drafts are provisional, and "require"
the prototype classifier to name a known attribute (`prototypes.py`), else they are dropped.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause
from workers.extraction.draft import Draft
from workers.extraction.value_phrase import PRIORITY, is_value, trim_value, value_draft

_I = re.IGNORECASE
#: A new value said as a bare noun phrase marked "now", the clause's whole statement ("day
#: shifts now", "on oat milk now", "sushi now, pizza never"): "now" says the value is the
#: current one.
_NOW_BARE = re.compile(
    r"^(?:(?:so|and|but|ok|okay|honestly|finally|yeah|anyway)[,:]?\s+)*(?:(?:on|in|at)\s+)?"
    r"(?P<val>(?!(?:it|that|this|he|she|they|you|i|we|me|there|here)\b)[a-z][\w'-]*"
    r"(?:\s+[\w'-]+){0,3}?)\s+(?:now|these\s+days|nowadays)(?=\s*(?:$|[,.;!:]))",
    _I,
)
#: The user given a new value by someone else: "they've put me on nights", "got moved to
#: the Leeds office", "HR switched me to part-time".
_MOVED_ME = re.compile(
    r"\b(?:put|moved|switched|transferred|promoted|assigned|placed)\s+(?:me|us)\s+"
    r"(?:on|onto|to|into|over\s+to)\s+(?P<val>[^\s,.;!?][^,.;!?]*)"
    r"|\b(?:i|we)\s+(?:got|was|were|have\s+been|'ve\s+been)\s+(?:moved|switched|transferred"
    r"|promoted|assigned|put)\s+(?:on|onto|to|into|over\s+to)\s+(?P<val2>[^\s,.;!?][^,.;!?]*)",
    _I,
)


def find(clause: Clause) -> list[Draft]:
    """Provisional drafts of the changes in `clause` said without the usual frame."""
    out: list[Draft] = []
    for m in _NOW_BARE.finditer(clause.text):
        value = trim_value(m["val"], 4)
        if is_value(value):
            out.append(value_draft("value.now", m, value, confidence=d.COMMITTED, require=True,
                                   statement=f"User: {value} now"))  # fmt: skip
    for m in _MOVED_ME.finditer(clause.text):
        value = trim_value(m["val"] or m["val2"])
        if is_value(value):
            # after the other value families: "moved me to locker 87" is a numbered thing
            out.append(value_draft("value.switch", m, value, confidence=d.COMMITTED,
                                   require=True, statement=f"User was moved to {value}",
                                   priority=PRIORITY + 1))  # fmt: skip
    return out
