"""Turns → edges: the extraction step of both deployments (the embedded pipeline and the
distributed extraction agent run this one implementation).

Edge ids derive from (session, turn, position), so a turn ingested or delivered again
yields the same edges, and the lifecycle stage folds them away. A turn of any length is kept
whole (its raw chunks); extraction and the session context see its bounded window
(`workers/extraction/long_turns.py`). `embedded` finishes a batch: one embedder call, then the
prototype classifier for the rule extractor's value-family facts and the withdrawal probe for
its candidate retractions, both over the vectors that call made
(`workers/extraction/classify.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from schemas.events import EdgeEvent, TurnEvent
from workers.errors import ExtractionError, brief
from workers.extraction.classify import embedded_edges
from workers.extraction.model import ExtractedFact
from workers.extraction.stage import edges_for_turn, extraction_turn
from workers.extraction.withdrawal_probe import ReadsWithdrawal
from workers.ports import Embedder, FactExtractor, TurnContext


@dataclass(frozen=True, slots=True)
class TurnEdges:
    """What one turn yields: its facts as edges, then its raw turn (not embedded yet)."""

    edges: list[EdgeEvent]
    #: Why extraction failed (with the LLM's raw answer when there was one); the raw turn
    #: is still kept (paper Appendix AA), its facts are not.
    failure: str | None = None
    #: The extracted facts behind the first edges (what the classifier needs to know).
    facts: list[ExtractedFact] = field(default_factory=list)


def turn_edges(turn: TurnEvent, extractor: FactExtractor, context: TurnContext) -> TurnEdges:
    """Extract one turn with its session's context, then add it to that context.

    A turn whose extraction `context` kept (a redelivery) yields the same facts as the first
    time, even from an LLM that would answer differently now: edge ids are positional.
    """
    window = extraction_turn(turn)  # a long turn: its bounded window
    facts = context.extracted(turn)
    failure = None
    if facts is None:
        try:
            facts = extractor.extract(window, context.recent(turn))
            context.remember_extracted(turn, facts)
        except ExtractionError as exc:
            detail = getattr(exc, "raw_response", None)
            failure = f"extraction failed: {brief(exc)}" + (
                f"; raw response: {detail}" if detail else ""
            )
            facts = []
    context.add(window)
    return TurnEdges(edges_for_turn(turn, facts), failure, list(facts))


def embedded(
    embedder: Embedder, steps: Sequence[TurnEdges], withdrawal: ReadsWithdrawal | None = None
) -> list[list[EdgeEvent]]:
    """Each step's edges, embedded in one call and classified (see the module doc); a
    candidate withdrawal stays only if `withdrawal` reads the raw turn's vector as one."""
    return embedded_edges([(step.edges, step.facts) for step in steps], embedder, withdrawal)
