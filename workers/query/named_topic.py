"""The topic a withdrawal names itself: what ties it to a plan its vector sits far from
(issue 11, AV7; `withdrawn.py`, round 24).

`withdrawn.py` binds a withdrawal to the user's earlier live assertion nearest it, if their
cosine says they are about the same thing (`min_cosine`), or — when the question, the
withdrawal and a window plan all say one content word — at a lower cosine
(`asked_topic.py`). A withdrawal told with its reasons sits far from the plan's vector (the
reasons carry most of it) and the question need not say any word of it ("when am I bringing
my retriever home?" after "the dog idea is off the table"). The withdrawal may still *name*
what it gives up, and that naming is the paper's tie (§3.3, A.9: a retraction masks the plan
it names):

* the *topic before a dismissal's verdict* ("the Lisbon trip: cxl", "the cabin: no."):
  `dismissal.named_topic_words`;
* the *slot the ingest's retraction names* ("plan.dog"), which the plan may say in a
  narrower word than the slot's ("golden retriever puppies" for "dog"): the slot's words,
  and the withdrawal turn's own content words whose vectors are at least `slot_kin_min_cosine`
  from a slot word's — a hyponym or synonym the user said beside it ("forget all the puppy
  stuff"). The plan must then say one of them: a word the withdrawal says, so a co-hyponym
  the user never said ("cat" for "dog") names nothing here.

A window plan that says a named word then binds at `asked_topic_min_cosine`, as the asked
topic does. Words stemmed (`bm25.tokenize`); single words embedded by the query's embedder
(deterministic): a pure function of the texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from workers.text.bm25 import tokenize

#: Texts → L2-normalized vectors (the query's embedder, `ports.Embedder.embed`).
Embed = Callable[[Sequence[str]], np.ndarray]

#: A word as the user wrote it (letters, inner apostrophes or hyphens).
_WORD = re.compile(r"[^\W\d_][\w'’-]*[^\W\d_]")


def slot_kin(
    slot_words: Sequence[str], text: str, embed: Embed, min_cosine: float
) -> frozenset[str]:
    """The stems of `text`'s content words whose vector is at least `min_cosine` from one of
    `slot_words`' (as written, not stemmed): the narrower or other words the withdrawal names
    its slot's thing by. Empty without slot words."""
    slots = sorted({w.lower() for w in slot_words if tokenize(w)})
    stems = set(tokenize(" ".join(slots)))
    words = sorted(
        {
            w.lower()
            for w in _WORD.findall(text)
            if len(tokenize(w)) == 1 and tokenize(w)[0] not in stems
        }
    )
    if not slots or not words:
        return frozenset()
    vectors = np.asarray(embed([*slots, *words]), dtype=np.float32)
    near = (vectors[len(slots) :] @ vectors[: len(slots)].T).max(axis=1)
    return frozenset(
        tokenize(w)[0] for w, c in zip(words, near, strict=True) if round(float(c), 6) >= min_cosine
    )
