"""Logging in with an API key, out again, and an admin's choice of tenant."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from frecall.access.tenants import TENANT_PATTERN
from frecall.inspector.render import page
from frecall.inspector.sessions import IDLE_SECONDS, SESSION_COOKIE
from frecall.inspector.visitor import VisitorDep, check_csrf, gate_of, sessions_of

router = APIRouter(include_in_schema=False)


def _safe_next(target: str | None) -> str:
    """Only a path of the inspector: a login link must not send anyone elsewhere."""
    if target and target.startswith("/ui") and not target.startswith("//"):
        return target
    return "/ui/users"


@router.get("/ui/login")
def login_form(
    request: Request,
    next_: Annotated[str | None, Query(alias="next")] = None,
    reason: str | None = None,
) -> Response:
    return page(
        "login.html",
        next=_safe_next(next_),
        reason=reason,
        error=None,
        keys_required=gate_of(request).keys_required,
    )


@router.post("/ui/login")
def login(
    request: Request,
    key: Annotated[str, Form(max_length=512)] = "",
    next_: Annotated[str, Form(alias="next", max_length=2048)] = "/ui/users",
) -> Response:
    gate, sessions = gate_of(request), sessions_of(request)
    target = _safe_next(next_)
    key = key.strip()
    error = "Enter an API key." if gate.keys_required and not key else None
    if key and error is None:
        try:
            gate.authenticate(request, key)
        except HTTPException as refused:
            if refused.status_code != 401:
                raise
            error = "That key is unknown or revoked."
    if error is not None:
        return page(
            "login.html",
            status=401,
            next=target,
            reason=None,
            error=error,
            keys_required=gate.keys_required,
        )
    session = sessions.open(key or None)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session.token,
        max_age=IDLE_SECONDS,
        path="/ui",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/ui/logout")
def logout(
    request: Request, visitor: VisitorDep, csrf: Annotated[str, Form(max_length=128)] = ""
) -> Response:
    check_csrf(visitor, csrf)
    sessions_of(request).close(visitor.session.token)
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/ui")
    return response


@router.post("/ui/tenant")
def choose_tenant(
    visitor: VisitorDep,
    tenant: Annotated[str, Form(pattern=TENANT_PATTERN, max_length=64)],
    csrf: Annotated[str, Form(max_length=128)] = "",
) -> Response:
    """Admin keys: look at another tenant (like the API's `X-Tenant`)."""
    check_csrf(visitor, csrf)
    if not visitor.principal.admin:
        raise HTTPException(403, "a tenant key sees its own tenant only")
    visitor.session.tenant = tenant
    return RedirectResponse("/ui/users", status_code=303)
