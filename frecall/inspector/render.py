"""Templates and the small formatting helpers the pages share."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse

_ENV = Environment(
    loader=PackageLoader("frecall.inspector", "templates"),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

#: Every page: never cached (it shows a user's memory), never framed.
HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "Referrer-Policy": "same-origin",
}


def when(t: datetime | None, seconds: bool = False) -> str:
    if t is None:
        return "—"
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def duration(hours: float) -> str:
    """A length of time people read at a glance: '36 h', '12.5 d', '3.1 y'."""
    if hours < 48:
        return f"{hours:.0f} h"
    days = hours / 24
    return f"{days:.1f} d" if days < 730 else f"{days / 365:.1f} y"


def local_input(t: datetime) -> str:
    """The value of an `<input type="datetime-local">` (UTC, minutes)."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


def parse_as_of(raw: str | None) -> datetime | None:
    """`as_of` from a form or a link: ISO 8601, a time without zone is UTC; "" is now."""
    if raw is None or not raw.strip():
        return None
    try:
        t = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    except ValueError:
        raise HTTPException(400, f"as_of: not a date and time: {raw!r}") from None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def user_url(user_id: str, suffix: str = "", **params: Any) -> str:
    path = f"/ui/users/{quote(user_id, safe='')}{suffix}"
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"{path}?{query}" if query else path


_ENV.filters["when"] = when
_ENV.filters["duration"] = duration
_ENV.globals["user_url"] = user_url
_ENV.globals["local_input"] = local_input


def page(
    name: str, status: int = 200, headers: Mapping[str, str] | None = None, **context: Any
) -> HTMLResponse:
    html = _ENV.get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers={**HEADERS, **(headers or {})})
