"""API keys: who is calling, for which tenant, and whether they may manage keys.

A key is `frk_<key id>_<secret>`: the key id (12 hex digits) is not secret — it names the
key in logs, metrics-free audit lines and `frecall keys list` — and the secret is 256 bits
from `secrets`. Only a keyed hash of the whole key is stored (HMAC-SHA256 with a pepper:
`FR_API_KEY_PEPPER`, or a fixed label when unset). A fast hash is right for keys of this
entropy: there is no dictionary to try, so a slow password hash would only slow every
request. Hashes are compared with `hmac.compare_digest` (constant time).

Once a deployment has held a key, every request needs one: a revoked last key does not
reopen the API (`Keyring.required`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict, Field

from frecall.access.tenants import DEFAULT_TENANT, check_tenant
from workers.errors import ConfigError

log = logging.getLogger(__name__)

KEY_PREFIX: Final = "frk"
KEY_ID_PATTERN: Final = r"^[0-9a-f]{12}$"
#: Without FR_API_KEY_PEPPER the HMAC key is this label (domain separation, no secret).
DEFAULT_PEPPER: Final = b"fortunate-recall api key v1"
SCHEME: Final = "hmac-sha256"


class KeyRecord(BaseModel):
    """What a key store holds for one key: never the key itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key_id: str = Field(pattern=KEY_ID_PATTERN)
    tenant: str
    admin: bool = False
    name: str = ""
    created_at: datetime
    revoked_at: datetime | None = None
    scheme: str = SCHEME
    digest: str = Field(description="hex HMAC-SHA256 of the key")

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class KeyInfo(BaseModel):
    """A key as `frecall keys list` and `GET /v1/keys` show it (no digest)."""

    key_id: str
    tenant: str
    admin: bool
    name: str
    created_at: datetime
    revoked_at: datetime | None = None


class KeyStore(Protocol):
    """Where key records live (the data dir embedded, Redis distributed). Thread-safe."""

    def add(self, record: KeyRecord) -> None:
        """Store a new record (its key id is new)."""

    def get(self, key_id: str) -> KeyRecord | None: ...

    def all(self) -> list[KeyRecord]:
        """Every record, revoked ones included, oldest first."""

    def revoke(self, key_id: str, at: datetime) -> KeyRecord | None:
        """Mark the key revoked (kept, so that it stays known and refused); None if unknown.
        Revoking a revoked key keeps its first revocation time."""

    def any(self) -> bool:
        """Whether any key was ever created."""

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts for. `key_id` None: the local operator (the CLI, an API with no
    key defined, the stdio MCP server), who acts as an admin."""

    key_id: str | None
    tenant: str
    admin: bool

    @property
    def label(self) -> str:
        """How logs name the caller: the key id, never the key."""
        return self.key_id or "local"


LOCAL_OPERATOR: Final = Principal(key_id=None, tenant=DEFAULT_TENANT, admin=True)


@dataclass(frozen=True, slots=True)
class NewKey:
    """A key just created: `key` is shown once (only its hash is stored)."""

    key: str
    record: KeyRecord


class Keyring:
    """Creates, lists, revokes and checks keys over a `KeyStore`."""

    def __init__(self, store: KeyStore, pepper: bytes | None = None) -> None:
        self.store = store
        self._pepper = pepper or DEFAULT_PEPPER
        self._required = False
        self._lock = threading.Lock()

    def digest(self, key: str) -> str:
        return hmac.new(self._pepper, key.encode(), hashlib.sha256).hexdigest()

    def create(self, tenant: str, *, admin: bool = False, name: str = "") -> NewKey:
        check_tenant(tenant)
        if len(name) > 200:
            raise ConfigError("key name: at most 200 characters")
        key_id = secrets.token_hex(6)
        while self.store.get(key_id) is not None:  # 48 bits: a clash is rare, never reused
            key_id = secrets.token_hex(6)
        key = f"{KEY_PREFIX}_{key_id}_{secrets.token_urlsafe(32)}"
        record = KeyRecord(
            key_id=key_id,
            tenant=tenant,
            admin=admin,
            name=name,
            created_at=datetime.now(UTC),
            digest=self.digest(key),
        )
        self.store.add(record)
        log.info("key %s created for tenant %s (admin: %s)", key_id, tenant, admin)
        return NewKey(key, record)

    def list(self) -> list[KeyInfo]:
        return [KeyInfo.model_validate(r.model_dump()) for r in self.store.all()]

    def revoke(self, key_id: str) -> KeyInfo | None:
        record = self.store.revoke(key_id, datetime.now(UTC))
        if record is not None:
            log.info("key %s revoked", key_id)
        return None if record is None else KeyInfo.model_validate(record.model_dump())

    def required(self) -> bool:
        """Whether requests need a key: once any key was created, for good."""
        if not self._required:
            with self._lock:
                self._required = self._required or self.store.any()
        return self._required

    def authenticate(self, key: str) -> Principal | None:
        """The principal of an active key; None for anything else (malformed, unknown,
        revoked). The key id picks the record; the hashes are compared in constant time."""
        key_id = key_id_of(key)
        record = self.store.get(key_id) if key_id is not None else None
        expected = record.digest if record is not None else _NO_DIGEST
        matches = hmac.compare_digest(self.digest(key), expected)
        if record is None or not matches or not record.active:
            return None
        return Principal(key_id=record.key_id, tenant=record.tenant, admin=record.admin)


#: Compared against when the key id is unknown, so that both paths hash and compare.
_NO_DIGEST: Final = "0" * 64


def key_id_of(key: str) -> str | None:
    """The key id of a well-formed key (safe to log), else None."""
    parts = key.split("_", 2)
    if len(parts) != 3 or parts[0] != KEY_PREFIX or len(parts[1]) != 12 or not parts[2]:
        return None
    return parts[1] if all(c in "0123456789abcdef" for c in parts[1]) else None
