"""Who is looking: the session of a page request, its key's principal and tenant view.

Pages declare `VisitorDep`; without a live session (or with a key revoked since the login)
the request is sent to the login page. The same `Gate` as the JSON API authenticates the
session's key (frecall/access/gate.py): same tenants, same rate limits, same access log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Request
from starlette.exceptions import HTTPException

from frecall.access.gate import Gate
from frecall.access.keys import Principal
from frecall.access.scoped import TenantView
from frecall.inspector.sessions import SESSION_COOKIE, Session, Sessions


@dataclass(frozen=True, slots=True)
class Visitor:
    session: Session
    principal: Principal
    view: TenantView
    #: False: the deployment has no key, anyone who reaches the server sees everything.
    keys_required: bool

    @property
    def tenant(self) -> str:
        return self.view.tenant


def sessions_of(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.inspector_sessions
    return sessions


def gate_of(request: Request) -> Gate:
    gate: Gate = request.app.state.gate
    return gate


def to_login(request: Request, reason: str | None = None) -> HTTPException:
    """A 303 to the login page that comes back here afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    location = f"/ui/login?next={quote(target, safe='')}"
    if reason:
        location += f"&reason={quote(reason, safe='')}"
    return HTTPException(303, "log in first", {"Location": location})


def visitor(request: Request) -> Visitor:
    gate, sessions = gate_of(request), sessions_of(request)
    session = sessions.get(request.cookies.get(SESSION_COOKIE))
    if session is None:
        raise to_login(request)
    if gate.keys_required and session.key is None:
        # Logged in while no key existed; now keys exist, so this session is no one's.
        sessions.close(session.token)
        raise to_login(request, "keys are required now: log in with one")
    try:
        principal = gate.authenticate(request, session.key)
    except HTTPException as refused:
        if refused.status_code != 401:
            raise
        sessions.close(session.token)
        raise to_login(request, "the key was revoked: log in again") from None
    view = gate.view(principal, session.tenant if principal.admin else None)
    return Visitor(session, principal, view, gate.keys_required)


VisitorDep = Annotated[Visitor, Depends(visitor)]


def check_csrf(visitor: Visitor, presented: str | None) -> None:
    """Refuse a state-changing form whose token is not this session's (403)."""
    if not visitor.session.csrf_ok(presented):
        raise HTTPException(403, "the form expired or came from another site: reload the page")
