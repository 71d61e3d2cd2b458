"""The memory inspector: web pages at `/ui` of `frecall serve` that show what the memory
knows about a user, why, and what it used to know (issue 15; docs/inspector.md).

Server-rendered (Jinja2 templates, inline SVG, one small script); every page asks the
tenant view of the logged-in key (frecall/inspector/visitor.py), so it works the same on
both deployments and a tenant key sees its tenant only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from frecall.inspector import forget, login, pages, playground
from frecall.inspector.render import page
from frecall.inspector.sessions import Sessions

Handler = Callable[[Request, Any], Awaitable[Response]]


def mount(api: FastAPI, sessions: Sessions | None = None) -> None:
    """Add the inspector's pages to `api` (which holds the `Gate` on `app.state.gate`)."""
    api.state.inspector_sessions = sessions or Sessions()
    for module in (login, pages, playground, forget):
        api.include_router(module.router)
    static = resources.files("frecall.inspector").joinpath("static")
    api.mount("/ui/static", StaticFiles(directory=str(static)), name="inspector-static")
    invalid = api.exception_handlers.get(RequestValidationError)
    api.add_exception_handler(HTTPException, _on_page(http_exception_handler))
    if invalid is not None:
        api.add_exception_handler(RequestValidationError, _on_page(cast(Handler, invalid)))


def _on_page(api_handler: Handler) -> Handler:
    """Errors of the pages as pages (a redirect to the login, a readable message); the
    JSON API's stay JSON."""

    async def handle(request: Request, exc: Exception) -> Response:
        if not request.url.path.startswith("/ui"):
            return await api_handler(request, exc)
        if isinstance(exc, HTTPException) and exc.status_code == 303 and exc.headers:
            return RedirectResponse(exc.headers["Location"], status_code=303)
        if isinstance(exc, HTTPException):
            # Headers such as a 429's Retry-After stay; a 401's challenge is the API's.
            kept = {k: v for k, v in (exc.headers or {}).items() if k.lower() == "retry-after"}
            return page("error.html", status=exc.status_code, headers=kept, message=exc.detail)
        return page("error.html", status=400, message="That request is not valid.")

    return handle
