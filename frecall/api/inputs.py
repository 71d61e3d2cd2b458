"""What the HTTP API accepts: the request bodies, exactly as their OpenAPI schema says.

The line formats of `frecall ingest` / `ingest-edges` / `query --batch`, tightened where the
schema and pydantic's lax mode would disagree (an API fuzzer holds us to the schema):

* types are strict: `0` is not a boolean, `"5"` not a number, a number not a date — a
  client that sends them learns it at once (422) instead of having them guessed;
* user ids are those of `USER_ID_PATTERN` (no whitespace, no `/`);
* category weights are bounded and at least one of them is positive, as the schema states.

Turns get their own input model (not `TurnEvent`), so that the public API does not change
when the event payload gets a new version.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    TypeAdapter,
    WithJsonSchema,
)

from frecall.access.tenants import TENANT_PATTERN, USER_ID_PATTERN
from schemas.categories import Category
from schemas.events import TurnEvent, UtcDatetime
from schemas.query import QueryRequest as _QueryRequest
from workers.inputs import EdgeInput

_TIME = TypeAdapter(UtcDatetime)


def _time_text(value: object) -> object:
    """An ISO 8601 string (or a datetime, from Python): not a number of seconds."""
    if isinstance(value, str | datetime):
        return _TIME.validate_python(value)
    raise ValueError("an ISO 8601 date-time string")


def _number(value: object) -> object:
    """A JSON number: not a string of digits, not a boolean."""
    if isinstance(value, bool | str):
        raise ValueError("a number")
    return value


def _whole(value: object) -> object:
    """A JSON integer (`3` or `3.0`): not a string, a boolean or a fraction."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool | str | float):
        raise ValueError("an integer")
    return value


#: A date-time the API accepts: ISO 8601 text, read as UTC when it has no zone.
ApiTime = Annotated[datetime, BeforeValidator(_time_text)]
ApiBool = Annotated[bool, Strict()]
# (Bounds go before the validator: after it, pydantic would leave them out of the schema.)
Fraction = Annotated[float, Field(ge=0, le=1), BeforeValidator(_number)]
#: A user id as the API accepts it (frecall.access.tenants.USER_ID_PATTERN).
ApiUserId = Annotated[str, Field(min_length=1, max_length=256, pattern=USER_ID_PATTERN)]
#: Items per ingest request; larger batches go in several requests.
MAX_ITEMS = 1_000


class TurnIn(BaseModel):
    """One conversation turn (the `frecall ingest` line format, without `schema_version`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: ApiUserId
    session_id: str = Field(min_length=1, max_length=256)
    turn_id: str = Field(min_length=1, max_length=256)
    role: Literal["user", "assistant"]
    text: str  # any length (DESIGN §6): a pasted document is kept whole
    timestamp: ApiTime

    def to_event(self) -> TurnEvent:
        """The event; raises pydantic's `ValidationError` if the event schema is stricter."""
        return TurnEvent.model_validate(self.model_dump())


class TurnsRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_ITEMS)


#: The largest category weight: weights are relative (normalized to sum to 1), and a bound
#: keeps their sum finite.
MAX_WEIGHT = 1e6
#: Soft membership as the API accepts it, stated fully in the schema: known categories,
#: weights in [0, MAX_WEIGHT], at least one of them > 0.
_WEIGHTS_SCHEMA = {
    "type": "object",
    "properties": {
        c.value: {"type": "number", "minimum": 0, "maximum": MAX_WEIGHT} for c in Category
    },
    "additionalProperties": False,
    "minProperties": 1,
    "anyOf": [
        {"properties": {c.value: {"exclusiveMinimum": 0}}, "required": [c.value]} for c in Category
    ],
}


class EdgeIn(EdgeInput):
    """One pre-extracted fact (the `frecall ingest-edges` line format)."""

    user_id: ApiUserId
    category: (
        Category
        | Annotated[
            dict[Category, Annotated[float, Field(ge=0, le=MAX_WEIGHT), BeforeValidator(_number)]],
            Field(min_length=1),
            WithJsonSchema(_WEIGHTS_SCHEMA),
        ]
    )
    value: str | Annotated[int, Strict()] | Annotated[float, Strict()] | None = None
    confidence: Fraction = 1.0
    event_time: ApiTime | None = None
    ingest_time: ApiTime | None = None
    numeric: ApiBool = False
    emotional_loading: Fraction = 0.0
    quarantined: ApiBool = False


class QueryRequest(_QueryRequest):
    """One query (the `frecall query --batch` line format)."""

    user_id: ApiUserId
    as_of: ApiTime | None = None
    k: Annotated[int, Field(ge=1, le=200), BeforeValidator(_whole)] = 10


class EdgesRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    edges: list[EdgeIn] = Field(min_length=1, max_length=MAX_ITEMS)


class KeyCreate(BaseModel):
    """A new API key (`frecall keys create`): for a tenant, optionally an admin key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant: str = Field(pattern=TENANT_PATTERN)
    admin: ApiBool = False
    name: str = Field(default="", max_length=200)
