"""Tenants: user ids live inside a tenant (an application), scoped once at the boundary.

A deployment's stores, topics, logs and exports are per *user id*; a tenant is made by
giving each (tenant, user) pair its own user id there — the *scoped* id — so that every
store, topic key, export, replay and forget inherits the isolation without knowing about
tenants (docs/architecture.md, "Tenants and API keys"):

    tenant "default", user "42"       →  "42"             (today's ids, unchanged)
    tenant "acme",    user "42"       →  "~acme~42"
    tenant "default", user "~acme~42" →  "~default~~acme~42"   (escaped: see below)

The map is injective, so no two (tenant, user) pairs share a scoped id: a scoped id that
starts with `~NAME~` (NAME a tenant name, which cannot contain `~`) belongs to tenant NAME
and the rest is the user id; every other id belongs to the default tenant as it is. A
default-tenant id that itself looks like `~NAME~…` is escaped under `~default~`, so that it
can never be read as another tenant's. Clients never see a scoped id: `unscope` turns
results back into the tenant's own ids.
"""

from __future__ import annotations

import re
from typing import Final

from workers.errors import ConfigError

DEFAULT_TENANT: Final = "default"
#: Lower-case letters, digits, `-` and `_`, at most 32 characters, starting with a letter or
#: digit: names that are safe in ids, logs, metrics and headers, and never contain `~`.
TENANT_PATTERN: Final = r"^[a-z0-9][a-z0-9_-]{0,31}$"
#: The longest user id any store accepts (schemas.events.UserId).
MAX_SCOPED_ID: Final = 256
#: User ids the API, the SDK and the MCP server accept: no whitespace — spelled out, since
#: `\s` means three different sets in Python's `re`, in pydantic-core's Rust regex and in the
#: ECMA regex of JSON Schema (what clients and API fuzzers read), and this class is their
#: union — and no `/`: a user id is a path segment of the HTTP API (`/v1/users/{user_id}`),
#: and an encoded `%2F` is decoded before routing. The log's own schema
#: (schemas.events.UserId) is left as it was: logs written before stay readable, and the
#: command line, which reads files, still takes any id without whitespace.
USER_ID_PATTERN: Final = (
    r"^[^/\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$"
)

_TENANT = re.compile(TENANT_PATTERN)
_SCOPED = re.compile(r"^~([a-z0-9][a-z0-9_-]{0,31})~(.*)$", re.DOTALL)


class TenantError(ConfigError):
    """A tenant name or a user id that cannot be scoped (HTTP 422, CLI exit status 1)."""


def check_tenant(name: str) -> str:
    """`name` if it is a valid tenant name; raises `TenantError` saying what is allowed."""
    if not _TENANT.match(name):
        raise TenantError(
            f"invalid tenant name {name!r}: 1 to 32 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def max_user_id(tenant: str) -> int:
    """The longest user id a tenant may use (its scoped form must fit a store's limit)."""
    return MAX_SCOPED_ID if tenant == DEFAULT_TENANT else MAX_SCOPED_ID - len(tenant) - 2


def scope(tenant: str, user_id: str) -> str:
    """The scoped id of `user_id` in `tenant` (raises `TenantError` when it cannot be)."""
    if tenant == DEFAULT_TENANT and not _SCOPED.match(user_id):
        return user_id
    check_tenant(tenant)
    scoped = f"~{tenant}~{user_id}"
    if len(scoped) > MAX_SCOPED_ID:
        limit = MAX_SCOPED_ID - len(tenant) - 2
        raise TenantError(
            f"user id too long: at most {limit} characters in tenant {tenant!r}"
            + (" for an id that starts like a scoped one (~name~…)" if tenant == "default" else "")
        )
    return scoped


def split(scoped: str) -> tuple[str, str]:
    """(tenant, user id) of a scoped id: the inverse of `scope` on every id it returns."""
    match = _SCOPED.match(scoped)
    if match is None:
        return DEFAULT_TENANT, scoped
    return match.group(1), match.group(2)


def unscope(tenant: str, scoped: str) -> str | None:
    """The user id of `scoped` if it belongs to `tenant`, else None (also for an id `scope`
    never returns, such as `~default~x`: no tenant owns it)."""
    owner, user_id = split(scoped)
    if owner != tenant:
        return None
    try:
        return user_id if scope(tenant, user_id) == scoped else None
    except TenantError:
        return None
