"""The extraction worker's logic: `fr.turns` in, `fr.edges` out (embedded, so that the
log carries its vectors and replay needs no model: docs/architecture.md "Replay")."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from schemas.events import TurnEvent
from schemas.streams import EDGES
from workers.distributed.messages import Outgoing, Received, Rejections
from workers.distributed.ports import DeliveryLedger
from workers.errors import brief
from workers.extraction.withdrawal_probe import ReadsWithdrawal
from workers.ports import Embedder, FactExtractor, TurnContext
from workers.turns import TurnEdges, embedded, turn_edges


class ExtractionHandler:
    """Turns → facts (+ the raw turn) → embedded edges, with the embedded pipeline's step
    (`workers.turns.turn_edges`); the session context is shared by every worker."""

    def __init__(
        self,
        extractor: FactExtractor,
        embedder: Embedder,
        context: TurnContext,
        ledger: DeliveryLedger,
        reject: Rejections,
        withdrawal: ReadsWithdrawal | None = None,
    ) -> None:
        """`withdrawal`: the probe gate for the rule extractor's candidate retractions
        (`WithdrawalGate.for_embedder`; None drops them)."""
        self._reject = reject
        self._withdrawal = withdrawal
        self._extractor = extractor
        self._embedder = embedder
        self._context = context
        self._ledger = ledger

    def handle_turns(self, messages: Sequence[Received]) -> list[Outgoing]:
        out: list[Outgoing] = []
        steps: list[TurnEdges] = []
        for message in messages:
            try:
                turn = TurnEvent.model_validate_json(message.value)
            except ValidationError as exc:
                out.append(self._reject(message, "not a turn", brief(exc)))
                continue
            if self._ledger.erased(turn.user_id, None, turn.timestamp):
                continue  # said before its user's erasure: not even kept as context
            step = turn_edges(turn, self._extractor, self._context)
            if step.failure is not None:
                out.append(self._reject(message, "extraction failed", step.failure))
            steps.append(step)
        for edges in embedded(self._embedder, steps, self._withdrawal):
            out += [Outgoing(EDGES, e.user_id, e.model_dump_json().encode()) for e in edges]
        return out
