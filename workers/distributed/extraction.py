"""The extraction worker's logic: `fr.turns` in, `fr.edges` out (embedded, so that the
log carries its vectors and replay needs no model: DESIGN §2)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from itertools import chain
from typing import Protocol

from pydantic import ValidationError

from schemas.events import TurnEvent
from schemas.streams import EDGES
from workers.distributed.messages import Outgoing, Received, brief, dead_letter
from workers.errors import ExtractionError
from workers.extraction.classify import embedded_edges
from workers.extraction.model import ExtractedFact
from workers.extraction.stage import extraction_turn
from workers.ports import Embedder, FactExtractor


class TurnContext(Protocol):
    """Recent turns per session (`SessionContext` in-process, `RedisFactStore` shared)."""

    def recent(self, turn: TurnEvent) -> list[TurnEvent]: ...

    def add(self, turn: TurnEvent) -> None: ...

    def erased(self, user_id: str, edge_id: str, ingest_time: datetime) -> bool: ...

    def extracted(self, turn: TurnEvent) -> list[ExtractedFact] | None:
        """What an earlier delivery of this turn extracted (None: not seen)."""

    def remember_extracted(self, turn: TurnEvent, facts: list[ExtractedFact]) -> None: ...


class ExtractionHandler:
    """Turns → facts (+ the raw turn) → embedded edges, as the embedded pipeline does.

    Edge ids derive from (user, session, turn, index), so a redelivered turn yields the
    same edges and the lifecycle worker folds them away.
    """

    def __init__(self, extractor: FactExtractor, embedder: Embedder, context: TurnContext) -> None:
        self._extractor = extractor
        self._embedder = embedder
        self._context = context

    def handle_turns(self, messages: Sequence[Received]) -> list[Outgoing]:
        out: list[Outgoing] = []
        extracted: list[tuple[TurnEvent, list[ExtractedFact]]] = []
        for message in messages:
            try:
                turn = TurnEvent.model_validate_json(message.value)
            except ValidationError as exc:
                out.append(dead_letter(message, f"not a turn: {brief(exc)}"))
                continue
            if self._context.erased(turn.user_id, "", turn.timestamp):
                continue  # said before its user's erasure: not even kept as context
            window = extraction_turn(turn)  # a long turn: its bounded window
            cached = self._context.extracted(turn)
            try:
                if cached is not None:
                    # A redelivery: the same facts as the first time, even from an LLM
                    # that would answer differently now (edge ids are positional).
                    facts = cached
                else:
                    facts = self._extractor.extract(window, self._context.recent(turn))
                    self._context.remember_extracted(turn, facts)
            except ExtractionError as exc:
                detail = getattr(exc, "raw_response", None)
                reason = f"extraction failed: {brief(exc)}" + (
                    f"; raw response: {detail}" if detail else ""
                )
                out.append(dead_letter(message, reason))
                facts = []  # the raw turn is still kept (Appendix AA)
            self._context.add(window)
            extracted.append((turn, facts))
        for edge in chain.from_iterable(embedded_edges(extracted, self._embedder)):
            out.append(Outgoing(EDGES, edge.user_id, edge.model_dump_json().encode()))
        return out
