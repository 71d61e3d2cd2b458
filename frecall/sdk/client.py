"""`Client` and `AsyncClient`: the memory of a `frecall serve`, over HTTP (httpx).

    from frecall import Client
    with Client("http://127.0.0.1:8080", api_key="frk_…") as memory:
        report = memory.add_turns([...])
        result = memory.query("42", "where do I live?", wait_for=report.edge_ids)

The same methods and results as `Memory`. Answers 429 (over the key's rate) and 502–504
are tried again with exponential backoff (honouring `Retry-After`), and so are requests
the server never answered: every call is idempotent (ingested ids derive from the input).
`wait_for` makes a query wait for the given edge ids (read-your-writes: the distributed
deployment applies writes asynchronously). Admin keys may pass `tenant` (`X-Tenant`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

import httpx

from frecall.sdk import calls
from frecall.sdk.calls import Backoff, Call
from frecall.sdk.errors import Unavailable
from frecall.sdk.inputs import Fact, Turn
from schemas.categories import Intent
from schemas.query import QueryResult
from schemas.results import ForgetReceipt, IngestReport, Inspection, MemoryExport, UserSummary

R = TypeVar("R")


def _headers(api_key: str | None, tenant: str | None) -> dict[str, str]:
    headers = {"User-Agent": "frecall-sdk"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    if tenant:
        headers["X-Tenant"] = tenant
    return headers


def _query(
    user_id: str,
    query: str,
    as_of: datetime | None,
    intent: Intent | str | None,
    k: int,
    wait_for: Sequence[str],
    timeout: float,
) -> Call[QueryResult]:
    return calls.query(calls.query_request(user_id, query, as_of, intent, k), wait_for, timeout)


class Client:
    """A synchronous client of `frecall serve` at `url`."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        tenant: str | None = None,
        timeout: float = 60.0,
        backoff: Backoff | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            base_url=url, headers=_headers(api_key, tenant), timeout=timeout, transport=transport
        )
        self._backoff = backoff or Backoff()

    def _send(self, call: Call[R]) -> R:
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    call.method, call.path, json=call.json, params=call.params
                )
            except httpx.TransportError as exc:
                wait = self._backoff.delay(attempt, None)
                if wait is None:
                    raise Unavailable(0, f"{self._http.base_url}: {exc}") from exc
            else:
                wait = self._backoff.delay(attempt, response)
                if wait is None:
                    return call.parse(response)
            time.sleep(wait)
            attempt += 1

    def add_turns(self, turns: Iterable[Turn]) -> IngestReport:
        return self._send(calls.add_turns(turns))

    def add_facts(self, facts: Iterable[Fact]) -> IngestReport:
        return self._send(calls.add_facts(facts))

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
        return self._send(_query(user_id, query, as_of, intent, k, wait_for, timeout))

    def export(self, user_id: str) -> MemoryExport:
        return self._send(calls.export(user_id))

    def forget(self, user_id: str, edge_id: str | None = None) -> ForgetReceipt:
        return self._send(calls.forget(user_id, edge_id))

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        return self._send(calls.inspect(user_id, as_of))

    def users(self) -> list[UserSummary]:
        return self._send(calls.users())

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class AsyncClient:
    """An asynchronous client of `frecall serve` at `url` (the methods of `Client`,
    awaited)."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        tenant: str | None = None,
        timeout: float = 60.0,
        backoff: Backoff | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=url, headers=_headers(api_key, tenant), timeout=timeout, transport=transport
        )
        self._backoff = backoff or Backoff()

    async def _send(self, call: Call[R]) -> R:
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    call.method, call.path, json=call.json, params=call.params
                )
            except httpx.TransportError as exc:
                wait = self._backoff.delay(attempt, None)
                if wait is None:
                    raise Unavailable(0, f"{self._http.base_url}: {exc}") from exc
            else:
                wait = self._backoff.delay(attempt, response)
                if wait is None:
                    return call.parse(response)
            await asyncio.sleep(wait)
            attempt += 1

    async def add_turns(self, turns: Iterable[Turn]) -> IngestReport:
        return await self._send(calls.add_turns(turns))

    async def add_facts(self, facts: Iterable[Fact]) -> IngestReport:
        return await self._send(calls.add_facts(facts))

    async def query(
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
        return await self._send(_query(user_id, query, as_of, intent, k, wait_for, timeout))

    async def export(self, user_id: str) -> MemoryExport:
        return await self._send(calls.export(user_id))

    async def forget(self, user_id: str, edge_id: str | None = None) -> ForgetReceipt:
        return await self._send(calls.forget(user_id, edge_id))

    async def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        return await self._send(calls.inspect(user_id, as_of))

    async def users(self) -> list[UserSummary]:
        return await self._send(calls.users())

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
