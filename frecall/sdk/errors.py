"""What the SDK raises: `FRError`s, the same from `Memory` and from the HTTP clients.

FRError
├── InvalidInput      items or arguments the memory refuses (HTTP 422): nothing written
└── ApiError          an HTTP answer that is not a result: `status`, `detail`
    ├── Unauthorized      401: no key, or an unknown or revoked one
    ├── Forbidden         403: the key may not do this
    ├── NeverQueryable    409: `wait_for` ids not in the user's memory (another user's,
    │                     erased): raised at once, never retried
    ├── RateLimited       429 after every retry (`retry_after` s)
    └── Unavailable       503 after every retry, or the server unreachable
"""

from __future__ import annotations

from typing import Any

from workers.errors import FRError


class InvalidInput(FRError):
    """`problems`: one `{"loc": [...], "msg": ..., "type": ...}` per refused field."""

    def __init__(self, problems: list[dict[str, Any]]) -> None:
        self.problems = problems
        shown = "; ".join(
            f"{'.'.join(str(p) for p in problem.get('loc', []))}: {problem.get('msg', '')}"
            for problem in problems[:5]
        )
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"invalid input: {shown}{more}")


class ApiError(FRError):
    def __init__(self, status: int, detail: str) -> None:
        self.status, self.detail = status, detail
        super().__init__(f"HTTP {status}: {detail}")


class Unauthorized(ApiError):
    pass


class Forbidden(ApiError):
    pass


class NeverQueryable(ApiError):
    pass


class RateLimited(ApiError):
    def __init__(self, status: int, detail: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(status, detail)


class Unavailable(ApiError):
    pass
