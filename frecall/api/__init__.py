"""The HTTP API (`frecall serve`): FastAPI over one deployment's object graph."""

from __future__ import annotations

from frecall.api.app import ApiLimits, create_app

__all__ = ["ApiLimits", "create_app"]
