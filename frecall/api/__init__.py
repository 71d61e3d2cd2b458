"""The HTTP API (`frecall serve`): FastAPI over a `Deployment`."""

from __future__ import annotations

from frecall.api.app import ApiLimits, create_api

__all__ = ["ApiLimits", "create_api"]
