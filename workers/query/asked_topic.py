"""The topic a question and a withdrawal both name: what ties a withdrawal to its plan when
their vectors are far apart (issue 11, AV7; `withdrawn.py`).

`withdrawn.py` binds a withdrawal to the user's earlier live assertion nearest it, if their
cosine says they are about the same thing (`min_cosine`). A withdrawal told with its reasons
("the band thing is cooked. X moved away and the rest of us can't be bothered. we're done, not
doing it") or in other words than the plan ("forget all the puppy stuff" after "looking at
golden retriever puppies") sits far from the plan's vector: the reasons carry most of it.
The question then supplies the missing tie. When the plan and the withdrawal are both among
the question's first candidates (the question retrieved both) and a content word the question
says is said by both — the topic the user asks about, named in the withdrawal and in the plan
— the plan is the withdrawal's target at a lower cosine (`asked_topic_min_cosine`): three
texts naming one topic stand in for the vectors' "same thing" (§3.3, A.9: a retraction masks
the plan it names). Words only, stemmed (`bm25.tokenize`), generic plan nouns left out; a
pure function of the texts.
"""

from __future__ import annotations

from workers.extraction.dismissal import topic_words


def asked_topic(query: str, withdrawal_text: str) -> frozenset[str]:
    """The content words the question says that the withdrawal says too (stemmed; generic plan
    nouns — thing, plan, idea, stuff — left out): a target must say one of them."""
    return topic_words(query) & topic_words(withdrawal_text)
