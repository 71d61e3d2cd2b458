"""`TenantView`: one tenant's view of a deployment — the `Deployment` port again, per tenant.

Every entry point (the CLI, the HTTP API, the SDK's `Memory`, the MCP server) holds a
`TenantView` instead of the deployment itself: user ids are scoped on the way in
(`frecall.access.tenants.scope`) and turned back on the way out, so the stores below stay
per user and never learn about tenants. What another tenant holds is simply absent: its
users are not listed, their ids cannot be named, and queries, exports, inspections and
erasures of a user id reach this tenant's user of that id only.

Whole-deployment jobs (replay, compaction) are not a tenant's: they pass through, for the
operator's command line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from frecall.access.tenants import TenantError, check_tenant, scope, unscope
from frecall.deployment import Deployment, LogSource, Ranking
from schemas.events import TurnEvent
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult
from schemas.results import (
    ForgetReceipt,
    IngestReport,
    Inspection,
    ItemFailure,
    MemoryExport,
    ReplayReport,
    UserSummary,
)
from workers.errors import InputError, NotQueryable
from workers.inputs import EdgeInput, Item
from workers.lifecycle.compaction import CompactionReport

M = TypeVar("M", bound=BaseModel)


class TenantView:
    """`inner` as `tenant` sees it (a `Deployment`). `owns`: closing the view closes
    `inner` (a command's own deployment); otherwise whoever opened `inner` closes it."""

    def __init__(self, inner: Deployment, tenant: str, *, owns: bool = False) -> None:
        self.inner = inner
        self.tenant = check_tenant(tenant)
        self._owns = owns

    # --- ids in and out ---------------------------------------------------------------------

    def scoped(self, user_id: str) -> str:
        """The stores' id of this tenant's `user_id` (raises `TenantError`)."""
        return scope(self.tenant, user_id)

    def _items(self, items: Iterable[Item[M]], source: str) -> Iterator[Item[M]]:
        """Items with scoped user ids, and their raw text too: the dead-letter log keeps the
        raw item, and a user's erasure finds its letters by the `user_id` in it."""
        for position, raw, item in items:
            if isinstance(item, InputError):
                yield position, self._raw(raw), item
                continue
            user_id = getattr(item, "user_id")  # noqa: B009 — every input model has one
            try:
                scoped = self.scoped(user_id)
            except TenantError as exc:
                yield position, self._raw(raw), InputError(source, position, f"user_id: {exc}")
                continue
            if scoped == user_id:
                yield position, raw, item
            else:
                yield position, self._raw(raw), item.model_copy(update={"user_id": scoped})

    def _raw(self, raw: str) -> str:
        try:
            document = json.loads(raw)
        except ValueError:
            return raw
        if not isinstance(document, dict) or not isinstance(document.get("user_id"), str):
            return raw
        try:
            scoped = self.scoped(document["user_id"])
        except TenantError:
            # Too long to scope: filed under the unchecked scoped form all the same, so that
            # this tenant's rejected words never land among another tenant's user's letters
            # (no valid id reaches it: only a whole-deployment purge does).
            scoped = f"~{self.tenant}~{document['user_id']}"
        if scoped == document["user_id"]:
            return raw
        return json.dumps({**document, "user_id": scoped}, ensure_ascii=False)

    # --- the port ---------------------------------------------------------------------------

    @property
    def policy(self) -> Policy:
        return self.inner.policy

    def ingest_turns(self, items: Iterable[Item[TurnEvent]], source: str) -> IngestReport:
        return self.inner.ingest_turns(self._items(items, source), source)

    def ingest_edges(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        return self.inner.ingest_edges(self._items(items, source), source)

    def query(
        self,
        request: QueryRequest,
        *,
        ranking: Ranking = "lifecycle",
        wait_for: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> QueryResult:
        scoped = request.model_copy(update={"user_id": self.scoped(request.user_id)})
        try:
            return self.inner.query(scoped, ranking=ranking, wait_for=wait_for, timeout=timeout)
        except NotQueryable as exc:  # its message names the user: by the tenant's own id
            raise NotQueryable(exc.missing, exc.timeout, request.user_id, exc.settled) from None

    def query_batch(
        self, items: Iterable[Item[QueryRequest]], source: str
    ) -> Iterator[QueryResult | ItemFailure]:
        return self.inner.query_batch(self._items(items, source), source)

    def export(self, user_id: str) -> MemoryExport:
        document = self.inner.export(self.scoped(user_id))
        facts = [
            fact.model_copy(update={"edge": _owned_edge(fact.edge, user_id)})
            for fact in document.facts
        ]
        return MemoryExport(user_id=user_id, facts=facts)

    def forget(
        self, user_id: str, edge_id: str | None = None, *, wait: bool = True
    ) -> ForgetReceipt:
        receipt = self.inner.forget(self.scoped(user_id), edge_id, wait=wait)
        return receipt.model_copy(update={"user_id": user_id})

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        view = self.inner.inspect(self.scoped(user_id), as_of)
        return view.model_copy(update={"user_id": user_id})

    def users(self) -> list[UserSummary]:
        """This tenant's users only, by their own ids, sorted."""
        mine = []
        for summary in self.inner.users():
            user_id = unscope(self.tenant, summary.user_id)
            if user_id is not None:
                mine.append(summary.model_copy(update={"user_id": user_id}))
        return sorted(mine, key=lambda s: s.user_id)

    def count(self, user_id: str | None = None) -> int:
        if user_id is not None:
            return self.inner.count(self.scoped(user_id))
        return sum(self.inner.count(self.scoped(s.user_id)) for s in self.users())

    def replay(self, source: LogSource = "log") -> ReplayReport:
        return self.inner.replay(source)

    def compact(self, as_of: datetime) -> CompactionReport:
        return self.inner.compact(as_of)

    def close(self) -> None:
        if self._owns:
            self.inner.close()


def _owned_edge(edge: dict[str, Any], user_id: str) -> dict[str, Any]:
    return {**edge, "user_id": user_id} if "user_id" in edge else edge
