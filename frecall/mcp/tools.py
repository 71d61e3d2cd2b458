"""The MCP tools over a tenant view of the deployment: `remember`, `recall`, `forget`,
`inspect`. Each call resolves its session first (frecall/mcp/sessions.py): the user is the
session's, so a model cannot be talked into reading or erasing someone else's memory.

Tools are plain functions; the SDK runs them in a worker thread (the deployment blocks).
Problems the model can act on (bad arguments, nothing to forget) come back as tool errors
with the reason; anything else is logged here and shown to the model as a failure only.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from frecall.mcp.models import Forgotten, Inspected, Recalled, Remembered, Said
from frecall.mcp.sessions import Sessions
from schemas.categories import Intent
from schemas.events import TurnEvent
from schemas.query import QueryRequest
from workers.errors import FRError, StorageError
from workers.inputs import listed

log = logging.getLogger(__name__)
T = TypeVar("T")

INSTRUCTIONS = (
    "Long-term memory of the user you are talking with. Call `remember` with what the user "
    "tells you about themselves (their words), `recall` before answering anything that "
    "depends on who they are or what they said before: it returns the facts that are current "
    "now, with why (superseded, retracted and expired facts are masked unless you ask about "
    "the past with intent 'historical'). `forget` erases a fact, or everything, when the user "
    "asks. `inspect` shows the whole memory by category and state."
)

IntentName = Literal["current", "historical", "upcoming", "past", "cancelled"]


def build_server(sessions: Sessions, version: str = "") -> MCPServer:
    server: MCPServer = MCPServer(
        "frecall", instructions=INSTRUCTIONS, version=version, website_url=None
    )

    @server.tool(
        description="Store what was said: one turn (`text`) or several (`turns`). Facts are "
        "extracted, classified and linked to what the user said before."
    )
    def remember(
        ctx: Context[Any],
        text: Annotated[str | None, Field(description="one user turn, verbatim")] = None,
        turns: Annotated[list[Said] | None, Field(description="several turns, in order")] = None,
        session_id: Annotated[
            str, Field(min_length=1, max_length=256, description="the conversation")
        ] = "mcp",
    ) -> Remembered:
        said = _said(text, turns)
        session = sessions.resolve(ctx)
        now = datetime.now(UTC)
        events = [
            TurnEvent(
                user_id=session.user_id,
                session_id=session_id,
                turn_id=_turn_id(session_id, i, s, now),
                role=s.role,
                text=s.text,
                timestamp=s.timestamp or now,
            )
            for i, s in enumerate(said)
        ]
        report = _call(lambda: session.view.ingest_turns(listed(events), "mcp:remember"))
        return Remembered.of(report)

    @server.tool(
        description="What the memory holds that answers a question, ranked, each fact with its "
        "lifecycle state and why."
    )
    def recall(
        ctx: Context[Any],
        question: Annotated[str, Field(min_length=1, max_length=4000)],
        as_of: Annotated[
            datetime | None, Field(description="the memory as it was then (default now)")
        ] = None,
        intent: Annotated[
            IntentName | None, Field(description="default: detected from the question")
        ] = None,
        k: Annotated[int, Field(ge=1, le=50, description="facts to return")] = 10,
    ) -> Recalled:
        session = sessions.resolve(ctx)
        request = QueryRequest(
            user_id=session.user_id,
            query=question,
            as_of=as_of,
            intent=Intent(intent) if intent else None,
            k=k,
        )
        return Recalled.of(_call(lambda: session.view.query(request)))

    @server.tool(
        description="Erase one fact (`edge_id`, from recall or inspect) or, with "
        "`everything: true`, all of the user's memory, from every store. Returns a receipt."
    )
    def forget(
        ctx: Context[Any],
        edge_id: Annotated[str | None, Field(min_length=1, max_length=200)] = None,
        everything: bool = False,
    ) -> Forgotten:
        if (edge_id is None) == (not everything):
            raise ToolError("give either edge_id (one fact) or everything: true (all of it)")
        session = sessions.resolve(ctx)
        receipt = _call(lambda: session.view.forget(session.user_id, edge_id))
        return Forgotten(edge_id=receipt.edge_id, removed=receipt.removed, at=receipt.at)

    @server.tool(
        description="The whole memory by category and state as of a time, with why each fact "
        "persists or fades."
    )
    def inspect(
        ctx: Context[Any],
        as_of: Annotated[datetime | None, Field(description="default now")] = None,
    ) -> Inspected:
        session = sessions.resolve(ctx)
        return Inspected.of(_call(lambda: session.view.inspect(session.user_id, as_of)))

    return server


def _said(text: str | None, turns: list[Said] | None) -> list[Said]:
    if (text is None) == (turns is None):
        raise ToolError("give either text (one turn) or turns (several)")
    said = [Said(text=text)] if text is not None else list(turns or [])
    if not said:
        raise ToolError("turns is empty")
    return said


def _turn_id(session_id: str, index: int, said: Said, now: datetime) -> str:
    """Derived from the turn (and its timestamp, when given: a retried call with the same
    timestamps stores the turns once)."""
    when = (said.timestamp or now).isoformat()
    basis = "\x1f".join((session_id, str(index), when, said.role, said.text))
    return "mcp-" + hashlib.sha1(basis.encode()).hexdigest()[:16]


def _call(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except StorageError as exc:  # its detail names server paths: for the log only
        log.error("mcp tool: %s", exc)
        raise ToolError(f"{exc.store}: {exc.operation} failed") from exc
    except FRError as exc:
        log.warning("mcp tool: %s", exc)
        raise ToolError(str(exc)) from exc
