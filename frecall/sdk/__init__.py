"""The Python SDK: `Memory` (in process), `Client` and `AsyncClient` (over HTTP) — the same
methods and typed results: `add_turns`, `add_facts`, `query`, `export`, `forget`,
`inspect`, `users`. Import them from `frecall` (loaded on first use there)."""

from frecall.sdk.client import AsyncClient, Client
from frecall.sdk.errors import (
    ApiError,
    Forbidden,
    InvalidInput,
    NeverQueryable,
    RateLimited,
    Unauthorized,
    Unavailable,
)
from frecall.sdk.memory import Memory

__all__ = [
    "ApiError",
    "AsyncClient",
    "Client",
    "Forbidden",
    "InvalidInput",
    "Memory",
    "NeverQueryable",
    "RateLimited",
    "Unauthorized",
    "Unavailable",
]
