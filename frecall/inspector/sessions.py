"""The inspector's login sessions: the API key stays on the server.

Logging in with a key opens a session: the browser gets a random token in an HttpOnly,
SameSite=Strict cookie scoped to `/ui`; the key itself never goes back to the browser, so
neither a script on the page nor a copied cookie jar reveals it, and logging out forgets it.
Every page request authenticates the session's key again through the `Gate`, so a key
revoked meanwhile ends its sessions at the next click, and the key's rate limit applies.

Each session has its own CSRF token: every form that changes something (forget, log out,
an admin's tenant) carries it, and a POST whose token does not match is refused.

Sessions live in the serving process's memory (one process serves the API: frecall/api/
server.py): a restart logs everyone out, which is the safe direction.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final

#: The session cookie (the key is never in it).
SESSION_COOKIE: Final = "frecall_ui"
#: Idle time after which a session ends.
IDLE_SECONDS: Final = 8 * 3600
#: Sessions kept at most; the least recently used goes first.
MAX_SESSIONS: Final = 10_000


@dataclass(slots=True)
class Session:
    """One logged-in browser. `key` None: the deployment has no key (the local operator)."""

    token: str
    key: str | None
    csrf: str
    #: The tenant an admin key chose to look at (None: the key's own).
    tenant: str | None = None
    last_seen: float = field(default_factory=time.monotonic)

    def csrf_ok(self, presented: str | None) -> bool:
        return presented is not None and secrets.compare_digest(presented, self.csrf)


class Sessions:
    """Thread-safe map of session tokens to sessions, with idle expiry."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS, limit: int = MAX_SESSIONS) -> None:
        self._idle = idle_seconds
        self._limit = limit
        self._by_token: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, key: str | None) -> Session:
        session = Session(secrets.token_urlsafe(32), key, secrets.token_urlsafe(32))
        with self._lock:
            self._by_token[session.token] = session
            while len(self._by_token) > self._limit:
                self._by_token.popitem(last=False)
        return session

    def get(self, token: str | None) -> Session | None:
        if not token:
            return None
        now = time.monotonic()
        with self._lock:
            session = self._by_token.get(token)
            if session is None:
                return None
            if now - session.last_seen > self._idle:
                del self._by_token[token]
                return None
            session.last_seen = now
            self._by_token.move_to_end(token)
            return session

    def close(self, token: str | None) -> None:
        if token:
            with self._lock:
                self._by_token.pop(token, None)

    def __len__(self) -> int:
        return len(self._by_token)
