"""The HTTP clients' requests and answers, without I/O: `Client` and `AsyncClient` send the
same `Call`s and parse them the same way; only how they wait differs.

An answer becomes the typed result `Memory` returns for the same call (`schemas.results`,
`schemas.query`), or an `FRError` (frecall/sdk/errors.py). A user with no memory in the
tenant is a 404 over HTTP and an empty export or inspection here, as `Memory` answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter, ValidationError

from frecall.sdk.errors import (
    ApiError,
    Forbidden,
    InvalidInput,
    NeverQueryable,
    RateLimited,
    Unauthorized,
    Unavailable,
)
from frecall.sdk.inputs import Fact, Turn, as_json
from schemas.categories import Intent
from schemas.query import QueryRequest, QueryResult
from schemas.results import ForgetReceipt, IngestReport, Inspection, MemoryExport, UserSummary

R = TypeVar("R")
#: Answers worth another try: over the key's rate, or a store or the server unavailable.
RETRIED = frozenset({429, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class Call(Generic[R]):
    method: str
    path: str
    parse: Callable[[httpx.Response], R]
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)


def add_turns(turns: Iterable[Turn]) -> Call[IngestReport]:
    body = {"turns": as_json(turns, {"schema_version"})}
    return Call("POST", "/v1/turns", _model(IngestReport), json=body)


def add_facts(facts: Iterable[Fact]) -> Call[IngestReport]:
    return Call("POST", "/v1/edges", _model(IngestReport), json={"edges": as_json(facts, set())})


def query(request: QueryRequest, wait_for: Sequence[str], timeout: float) -> Call[QueryResult]:
    params: dict[str, Any] = {"wait_timeout": timeout}
    if wait_for:
        params["wait_for"] = list(wait_for)
    body = request.model_dump(mode="json", exclude_none=True)
    return Call("POST", "/v1/query", _model(QueryResult), json=body, params=params)


def export(user_id: str) -> Call[MemoryExport]:
    empty = MemoryExport(user_id=user_id, facts=[])
    return Call("GET", f"/v1/users/{_seg(user_id)}/memory", _model(MemoryExport, empty))


def forget(user_id: str, edge_id: str | None) -> Call[ForgetReceipt]:
    path = f"/v1/users/{_seg(user_id)}"
    if edge_id is not None:
        path += f"/facts/{quote(edge_id, safe='/')}"
    return Call("DELETE", path, _model(ForgetReceipt))


def inspect(user_id: str, as_of: datetime | None) -> Call[Inspection]:
    when = as_of or datetime.now(UTC)
    empty = Inspection(user_id=user_id, as_of=when, facts=0, categories={})
    params = {"as_of": when.isoformat()}
    return Call(
        "GET", f"/v1/users/{_seg(user_id)}/inspect", _model(Inspection, empty), params=params
    )


def users() -> Call[list[UserSummary]]:
    adapter = TypeAdapter(list[UserSummary])
    return Call("GET", "/v1/users", lambda r: adapter.validate_python(_ok(r).json()))


def query_request(
    user_id: str, text: str, as_of: datetime | None, intent: Intent | str | None, k: int
) -> QueryRequest:
    """The request `Memory` and the clients send, checked here (InvalidInput)."""
    try:
        return QueryRequest(user_id=user_id, query=text, as_of=as_of, intent=intent, k=k)
    except ValidationError as exc:
        raise InvalidInput(
            [
                {"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]}
                for e in exc.errors(include_url=False)
            ]
        ) from exc


def _seg(value: str) -> str:
    return quote(value, safe="")


def _model(model: type[R], absent: R | None = None) -> Callable[[httpx.Response], R]:
    adapter = TypeAdapter(model)

    def parse(response: httpx.Response) -> R:
        if response.status_code == 404 and absent is not None:
            return absent
        return adapter.validate_python(_ok(response).json())

    return parse


def _ok(response: httpx.Response) -> httpx.Response:
    if response.is_success:
        return response
    raise error_of(response)


def error_of(response: httpx.Response) -> Exception:
    """The SDK's error for a failed answer."""
    status = response.status_code
    try:
        detail: Any = response.json().get("detail", response.text)
    except ValueError:
        detail = response.text
    if status == 422 and isinstance(detail, list):
        return InvalidInput(detail)
    text = detail if isinstance(detail, str) else str(detail)
    if status == 401:
        return Unauthorized(status, text)
    if status == 403:
        return Forbidden(status, text)
    if status == 409:
        return NeverQueryable(status, text)
    if status == 429:
        return RateLimited(status, text, retry_after(response))
    if status in RETRIED:
        return Unavailable(status, text)
    return ApiError(status, text)


def retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["retry-after"])
    except (KeyError, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with jitter, at most `retries` more tries; a `Retry-After` the
    server sends is honoured (up to `cap` s)."""

    retries: int = 4
    base: float = 0.25
    cap: float = 8.0

    def delay(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds before try `attempt + 1` (attempt counts from 0), or None: give up."""
        if attempt >= self.retries:
            return None
        if response is not None:
            if response.status_code not in RETRIED:
                return None
            told = retry_after(response)
            if told is not None:
                return min(self.cap, told)
        return min(self.cap, self.base * 2**attempt) * random.uniform(0.5, 1.0)
