"""Fortunate Recall: long-term memory for LLM chat platforms that knows which facts are
current.

    from frecall import Memory, Client, AsyncClient

The SDK (frecall/sdk/) loads on first use of one of its names: the command line imports
this package on every invocation, and must not pay for httpx and the deployments there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from frecall.sdk import AsyncClient, Client, Memory

__all__ = ["AsyncClient", "Client", "Memory"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from frecall import sdk

        return getattr(sdk, name)
    raise AttributeError(f"module 'frecall' has no attribute {name!r}")
