"""The API's FastAPI dependencies: the caller (`PrincipalDep`) and its tenant's view of the
deployment (`ViewDep`), from the `Gate` on `app.state.gate` (frecall/access/gate.py).

Any route of `frecall serve` — the JSON API, the inspector's pages — declares them as
parameters: `def page(view: ViewDep, principal: PrincipalDep) -> …`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from frecall.access.gate import Gate
from frecall.access.keys import Principal
from frecall.access.scoped import TenantView
from frecall.access.tenants import TENANT_PATTERN
from frecall.api.models import ErrorBody

#: Declares the scheme in the OpenAPI document; a missing header is ours to answer (401).
BEARER = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    description="an API key from `frecall keys create` (`Authorization: Bearer KEY`)",
)

#: Responses every authenticated route may give, for its OpenAPI entry.
AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "a body that is not JSON, or a bad request"},
    401: {"model": ErrorBody, "description": "no API key, or an unknown or revoked one"},
    403: {"model": ErrorBody, "description": "the key may not do this (another tenant, admin)"},
    429: {
        "model": ErrorBody,
        "description": "the key is over its rate limit",
        "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}},
    },
}


def gate_of(request: Request) -> Gate:
    gate: Gate = request.app.state.gate
    return gate


def principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
) -> Principal:
    return gate_of(request).authenticate(request, credentials.credentials if credentials else None)


PrincipalDep = Annotated[Principal, Depends(principal)]


def tenant_view(
    request: Request,
    caller: PrincipalDep,
    x_tenant: Annotated[
        str | None,
        Header(
            alias="X-Tenant",
            pattern=TENANT_PATTERN,
            description="admin keys: the tenant to act in (default: the key's own)",
        ),
    ] = None,
) -> TenantView:
    return gate_of(request).view(caller, x_tenant)


ViewDep = Annotated[TenantView, Depends(tenant_view)]


def admin(request: Request, caller: PrincipalDep) -> Principal:
    Gate.require_admin(caller)
    return caller


AdminDep = Annotated[Principal, Depends(admin)]
