"""The whole offline extraction, as the product runs it: the rule extractor's facts, then the
extraction stage's prototype classifier over their MiniLM vectors (workers/extraction/classify.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from schemas.events import EdgeEvent, TurnEvent
from workers.embedding.cached import CachedEmbedder
from workers.embedding.minilm import MiniLMEmbedder
from workers.extraction.classify import embedded_edges
from workers.extraction.rules import RuleExtractor
from workers.extraction.stage import edges_for_turn


@cache
def embedder() -> CachedEmbedder:
    """One MiniLM for the test session; repeated texts are embedded once."""
    return CachedEmbedder(MiniLMEmbedder(intra_op_threads=2))


def facts_of(
    extractor: RuleExtractor, turn: TurnEvent, context: Sequence[TurnEvent] = ()
) -> list[EdgeEvent]:
    """The fact edges (raw chunks aside) the pipeline keeps for `turn`."""
    facts = extractor.extract(turn, context)
    (edges,) = embedded_edges([(edges_for_turn(turn, facts), facts)], embedder())
    return [e for e in edges if not e.episodic]
