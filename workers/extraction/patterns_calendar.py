"""Calendar entries named by any noun: "Boiler check on May 19 at 12pm", "the plumber is
coming on Wednesday at 5pm", "booked the barber for Friday", "car service booked tomorrow
at noon", "I'm on call on Sunday".

`patterns_events` knows appointments, flights, meetings and deliveries by their nouns; an
entry whose noun it does not know would otherwise stay an undated raw turn that never
expires (AV2). Here the *shape* says it is an entry — a noun phrase tied to a date by
"booked", "scheduled", "is coming", or nothing but "on <date>" — so the entry gets its event
time and expires with it. The slot comes from `slots.event_slot` when the noun is known (so
"my haircut got moved to Thursday" finds "haircut booked on March 16"), else from the noun.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, head_noun, slug
from workers.extraction.dates import has_date_cue
from workers.extraction.draft import Draft
from workers.extraction.lexicon import PROFESSIONS
from workers.extraction.slots import event_slot

_I = re.IGNORECASE
_NP = r"(?P<np>(?:the|my|our|a|an|his|her)?\s*[\w'-]+(?:\s+[\w'-]+){0,3}?)"
_WHEN = r"(?:on|for|this|next|tomorrow|today|tonight|at|in)\b"
_SHAPES: tuple[tuple[re.Pattern[str], d.Weights], ...] = tuple(
    (re.compile(p, _I), cats)
    for p, cats in (
        # "I'm on call on Sunday", "I'm on nights on the 3rd"
        (r"^(?:i'm|i\s+am|im)\s+(?P<np>on\s+(?:call|nights|duty|shift))\s+" + _WHEN, d.OBLIGATION),
        # "Booked the barber on Friday", "got a physio slot on May 2", "scheduled a boiler check"
        (
            rf"^(?:i\s+|we\s+|just\s+|finally\s+)*(?:booked|scheduled|got|have|arranged|set\s+up)\s+"
            rf"{_NP}(?:\s+(?:slot|appointment))?\s+{_WHEN}",
            d.OBLIGATION,
        ),
        # "Car service booked on June 14", "haircut's booked for Friday"
        (
            rf"^{_NP}(?:\s+is|'s|\s+are)?\s+(?:booked|scheduled|confirmed|set|penciled\s+in"
            rf"|pencilled\s+in)\s+{_WHEN}",
            d.OBLIGATION,
        ),
        # "The plumber is coming on Wednesday", "the fridge arrives on May 3"
        (
            rf"^{_NP}(?:\s+is|\s+are|'s)?\s+(?:coming(?:\s+round|\s+over)?|comes|arrives|arriving"
            r"|gets\s+here|being\s+delivered|visiting)\s+" + _WHEN,
            d.LOGISTICS,
        ),
        # "They're delivering the desk on Friday"
        (
            rf"^(?:they're|they\s+are|they'll\s+be|they\s+will\s+be)\s+(?:delivering|installing"
            rf"|fitting|fixing)\s+{_NP}\s+{_WHEN}",
            d.LOGISTICS,
        ),
        # "Boiler check on May 19 at 12pm", "Team offsite tomorrow at 8am",
        # "Parents' evening is on Sunday at 7pm": a bare entry, as in a diary.
        (rf"^{_NP}(?:\s+is|'s)?\s+(?:on\s+[\w ]+?|tomorrow|today|tonight)\s+at\s+\d", d.OBLIGATION),
    )
)
_NOT_ENTRIES = frozenset(
    {"i", "we", "it", "that", "this", "he", "she", "they", "there", "what", "everything",
     "nothing", "something", "i'm", "we're", "dinner", "lunch", "breakfast", "the weather", "work"}
)  # fmt: skip


def find(clause: Clause) -> list[Draft]:
    text = clause.text.strip()
    if not has_date_cue(text):
        return []
    for pattern, cats in _SHAPES:
        m = pattern.search(text)
        if m is None:
            continue
        np = " ".join(m["np"].split()).removesuffix("'s")
        if not np or np.lower() in _NOT_ENTRIES or np.lower().split()[-1] in _NOT_ENTRIES:
            continue
        found = None if np.lower().startswith("on ") else event_slot(np)  # on call ≠ a call
        if found is not None:
            slot, categories = found
        elif cats is d.LOGISTICS and head_noun(np) not in PROFESSIONS:
            # "the fridge arrives", "they're delivering the desk": the slot "fridge delivery
            # on March 16" gets in `patterns_events`; a plumber coming is a visit.
            slot, categories = f"delivery.{head_noun(np)}", d.LOGISTICS
        else:
            key = slug(np, max_words=2)
            if not key:
                continue
            slot, categories = f"event.{key}", cats
        return [
            Draft(
                kind="event.entry",
                categories=categories,
                slot_key=slot,
                value=None,
                update=d.R,
                confidence=d.STATED,
                span=(m.start(), m.end()),
                priority=60,
                dates="future",
                needs_date=True,
            )
        ]
    return []
