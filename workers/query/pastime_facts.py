"""A pastime fact serves the questions routed to Hobbies (§3.3 routing; issue 11, AV5 / AV9).

The offline extractor reads a pastime told as a habit or as taken up ("most evenings I'm at
the wheel", "I joined the church choir") as a Hobbies fact: slot-less and additive (A.7.2),
the turn's own words under the Hobbies category (`workers/extraction/patterns_pastimes.py`,
`patterns_takeups.py`). The fact exists so that a question for the user's pastimes, whose
words ("hobbies", "free time") share nothing with the turn's, finds it through category-
forced retrieval and routing. Its raw turn is stored beside it, verbatim, with its own
category (`stage._mixed_categories`).

For a question routed to another category, the fact adds nothing its raw turn does not
already say, yet it competes: two pastime facts outranked the job for "what does X do for
work?" (round 24, heldout11 AV9), and an extra fact in the pool moves every σ (the pool's
weakest cosine is the σ scale's floor, `similarity._dense`) and with it the first tier. So
for such a question the pastime facts leave the candidate pool; their raw turns stay, and
are served by their own words as they were before the fact existed.

A pastime fact is known by its shape, not by any word: a non-episodic fact whose only
category is Hobbies, with no slot (a named hobby keys `hobby.<name>`), additive update and the
pastime reading's stated confidence — below `SUPERSEDING`, the confidence an additive fact
needs to supersede anything (Appendix Z), which the pastime reading never reaches by design. A
slot-less Hobbies fact said as committed ("I've also started learning the piano", 0.95) is a
value family's statement and competes for every question as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent
from workers.ports import Hit

#: An additive fact supersedes only at this confidence (Appendix Z); the pastime reading
#: states its facts below it (`draft.STATED`, 0.9) so that a pastime never replaces another.
SUPERSEDING = 0.95


def is_pastime_fact(edge: EdgeEvent) -> bool:
    """Whether the edge is a pastime read from its turn: slot-less, additive, Hobbies only,
    stated below the superseding confidence."""
    return (
        not edge.episodic
        and edge.slot_key is None
        and edge.update is UpdateSemantics.ACCUMULATE
        and edge.confidence < SUPERSEDING
        and set(edge.categories) == {Category.HOBBIES_RECREATION}
    )


def without_pastime_facts(by_source: Mapping[str, Sequence[Hit]]) -> dict[str, list[Hit]]:
    """Every source's hits without the pastime facts (for a question routed elsewhere)."""
    return {
        source: [h for h in hits if not is_pastime_fact(h.record.edge)]
        for source, hits in by_source.items()
    }
