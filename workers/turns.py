"""Turns → edges: the extraction step of both deployments (the embedded pipeline and the
distributed extraction agent run this one implementation).

Edge ids derive from (session, turn, position), so a turn ingested or delivered again
yields the same edges, and the lifecycle stage folds them away.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.events import EdgeEvent, TurnEvent
from workers.errors import ExtractionError, brief
from workers.extraction.stage import edges_for_turn
from workers.ports import FactExtractor, TurnContext


@dataclass(frozen=True, slots=True)
class TurnEdges:
    """What one turn yields: its facts as edges, then its raw turn (not embedded yet)."""

    edges: list[EdgeEvent]
    #: Why extraction failed (with the LLM's raw answer when there was one); the raw turn
    #: is still kept (paper Appendix AA), its facts are not.
    failure: str | None = None


def turn_edges(turn: TurnEvent, extractor: FactExtractor, context: TurnContext) -> TurnEdges:
    """Extract one turn with its session's context, then add it to that context.

    A turn whose extraction `context` kept (a redelivery) yields the same facts as the first
    time, even from an LLM that would answer differently now: edge ids are positional.
    """
    facts = context.extracted(turn)
    failure = None
    if facts is None:
        try:
            facts = extractor.extract(turn, context.recent(turn))
            context.remember_extracted(turn, facts)
        except ExtractionError as exc:
            detail = getattr(exc, "raw_response", None)
            failure = f"extraction failed: {brief(exc)}" + (
                f"; raw response: {detail}" if detail else ""
            )
            facts = []
    context.add(turn)
    return TurnEdges(edges_for_turn(turn, facts), failure)
