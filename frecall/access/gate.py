"""Who a request acts for, and the tenant view it gets (docs/architecture.md, "Tenants and
API keys").

`Gate.authenticate` turns a request into a `Principal`: the key from `Authorization: Bearer
KEY`, else from the `frecall_key` cookie (for pages such as the inspector: a login form
that takes a key sets it, HttpOnly and SameSite=Strict). No key defined in the deployment:
every caller is the local operator (an admin of the default tenant) — `frecall serve`
refuses to bind a non-loopback address in that state. Otherwise a missing, malformed,
unknown or revoked key is a 401, and a key over its rate is a 429 with `Retry-After`.

`Gate.view` is the tenant a principal acts in: its key's tenant, or — admins only — the
tenant named by `X-Tenant`. Entry points other than the JSON API (the inspector's pages)
use the same two calls: `gate.authenticate(request)` then `gate.view(principal, tenant)`.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from typing import Final

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from frecall.access.keys import LOCAL_OPERATOR, Keyring, Principal
from frecall.access.ratelimit import RateLimiter, retry_after
from frecall.access.scoped import TenantView
from frecall.deployment import Deployment
from workers.errors import ConfigError

log = logging.getLogger("frecall.access")

#: The cookie a page may carry the key in (the API reads it when there is no bearer key).
KEY_COOKIE: Final = "frecall_key"
UNAUTHORIZED: Final = {"WWW-Authenticate": 'Bearer realm="frecall"'}


class Gate:
    """Keys, rate limits and tenant views for one deployment. `keyring` None: no keys at
    all (an embedded test app); `limiter` None: no rate limit."""

    def __init__(
        self,
        deployment: Deployment,
        keyring: Keyring | None = None,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.deployment = deployment
        self.keyring = keyring
        self.limiter = limiter
        self._views: dict[str, TenantView] = {}
        self._lock = threading.Lock()

    @property
    def keys_required(self) -> bool:
        return self.keyring is not None and self.keyring.required()

    def authenticate(self, request: HTTPConnection, bearer: str | None = None) -> Principal:
        """The request's principal (set on `request.state.principal` for the access log);
        raises 401 or 429 as `HTTPException`s. `bearer`: the key, if the caller parsed the
        Authorization header already; else it is read here, then the cookie."""
        if not self.keys_required:
            principal = LOCAL_OPERATOR
        else:
            assert self.keyring is not None
            key = bearer or _bearer(request) or request.cookies.get(KEY_COOKIE)
            if not key:
                raise HTTPException(401, "an API key is required", UNAUTHORIZED)
            found = self.keyring.authenticate(key)
            if found is None:
                log.warning("refused an unknown or revoked key from %s", _client(request))
                raise HTTPException(401, "unknown or revoked API key", UNAUTHORIZED)
            principal = found
            wait = self.limiter.take(principal.label) if self.limiter is not None else 0.0
            if wait > 0:
                request.state.principal = principal
                raise HTTPException(429, "rate limit exceeded", {"Retry-After": retry_after(wait)})
        request.state.principal = principal
        return principal

    def tenant_of(self, principal: Principal, named: str | None) -> str:
        """The tenant the principal acts in: its own, or one an admin names (403 for a
        tenant key naming another tenant)."""
        if named is None or named == principal.tenant:
            return principal.tenant
        if not principal.admin:
            raise HTTPException(403, "a tenant key acts in its own tenant only (X-Tenant)")
        return named

    def view(self, principal: Principal, named: str | None = None) -> TenantView:
        tenant = self.tenant_of(principal, named)
        with self._lock:
            view = self._views.get(tenant)
            if view is None:
                view = self._views[tenant] = TenantView(self.deployment, tenant)
            return view

    @staticmethod
    def require_admin(principal: Principal) -> None:
        if not principal.admin:
            raise HTTPException(403, "this needs an admin key")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def refuse_open_network(keyring: Keyring, host: str) -> None:
    """No key and a non-loopback address would serve every user's memory to the network."""
    if not is_loopback(host) and not keyring.required():
        raise ConfigError(
            f"refusing to listen on {host}: no API key exists, so anyone on the network could "
            "read and erase every user's memory. Create a key first — `frecall keys create "
            "--tenant TENANT` (add --admin for one that manages keys) prints it — and send it "
            "as `Authorization: Bearer KEY`; or listen on 127.0.0.1"
        )


def _bearer(request: HTTPConnection) -> str | None:
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    return credentials.strip() or None if scheme.lower() == "bearer" else None


def _client(request: HTTPConnection) -> str:
    return request.client.host if request.client is not None else "?"
