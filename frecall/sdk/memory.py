"""`Memory`: the memory in this process (the embedded deployment over a data dir).

    from frecall import Memory
    with Memory("./frecall-data") as memory:
        report = memory.add_turns([{"user_id": "42", "session_id": "s1", "turn_id": "t1",
                                    "role": "user", "text": "I moved to Lisbon",
                                    "timestamp": "2026-05-01T10:00:00Z"}])
        print(memory.query("42", "where do I live?").results[0].text)

The same methods and results as `Client` and `AsyncClient` (which speak to `frecall serve`).
A data dir belongs to one process at a time: while `frecall serve` runs on it, use `Client`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from types import TracebackType

from frecall.access.scoped import TenantView
from frecall.access.tenants import DEFAULT_TENANT
from frecall.sdk import calls
from frecall.sdk.errors import NeverQueryable, Unavailable
from frecall.sdk.inputs import Fact, Turn, check_user, facts_of, turns_of
from frecall.settings import Settings
from frecall.wiring import open_deployment
from schemas.categories import Intent
from schemas.query import QueryResult
from schemas.results import ForgetReceipt, IngestReport, Inspection, MemoryExport, UserSummary
from workers.errors import NotQueryable
from workers.inputs import listed


class Memory(AbstractContextManager["Memory"]):
    """The embedded deployment of `data_dir` (or of `settings`), as `tenant` sees it.

    `extractor`: auto (an LLM when FR_OPENAI_* is configured, else the rules), rules or
    llm. Stores open on first use; `close` (or the `with` block) releases them.
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        tenant: str = DEFAULT_TENANT,
        settings: Settings | None = None,
        extractor: str = "auto",
    ) -> None:
        settings = settings or Settings()
        if data_dir is not None:
            settings = settings.model_copy(update={"data_dir": Path(data_dir)})
        self.settings = settings
        deployment = open_deployment(settings, extractor=extractor, quiet=True)
        self._view = TenantView(deployment, tenant, owns=True)

    @property
    def tenant(self) -> str:
        return self._view.tenant

    def as_tenant(self, tenant: str) -> Memory:
        """The same memory as another tenant sees it (one process serving several
        applications); closing it leaves this one open."""
        other = Memory.__new__(Memory)
        other.settings = self.settings
        other._view = TenantView(self._view.inner, tenant)
        return other

    def add_turns(self, turns: Iterable[Turn]) -> IngestReport:
        """Conversation turns through extraction into the memory. All are checked first:
        one invalid turn raises `InvalidInput` and nothing is written."""
        events = turns_of(turns, self._view)
        return self._view.ingest_turns(listed(events), "sdk:add_turns")

    def add_facts(self, facts: Iterable[Fact]) -> IngestReport:
        """Pre-extracted facts (the `frecall ingest-edges` line format); all checked first."""
        edges = facts_of(facts, self._view, self._view.policy)
        return self._view.ingest_edges(listed(edges, exclude_unset=True), "sdk:add_facts")

    def query(
        self,
        user_id: str,
        query: str,
        *,
        as_of: datetime | None = None,
        intent: Intent | str | None = None,
        k: int = 10,
        wait_for: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> QueryResult:
        """The user's facts ranked for `query` as of a time (default now). `wait_for`: edge
        ids an `add_*` returned, to read one's own writes (here they already are)."""
        request = calls.query_request(user_id, query, as_of, intent, k)
        check_user(self._view, user_id)
        try:
            return self._view.query(request, wait_for=wait_for, timeout=timeout)
        except NotQueryable as exc:  # as the clients raise it
            if exc.settled:
                raise NeverQueryable(409, str(exc)) from None
            raise Unavailable(503, str(exc)) from None

    def export(self, user_id: str) -> MemoryExport:
        check_user(self._view, user_id)
        return self._view.export(user_id)

    def forget(self, user_id: str, edge_id: str | None = None) -> ForgetReceipt:
        """Erase one fact, or the whole user, from every store; the receipt counts them."""
        check_user(self._view, user_id)
        return self._view.forget(user_id, edge_id)

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        check_user(self._view, user_id)
        return self._view.inspect(user_id, as_of)

    def users(self) -> list[UserSummary]:
        return self._view.users()

    def close(self) -> None:
        self._view.close()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
