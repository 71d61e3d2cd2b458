"""`--log-format json`: one JSON object a line on stderr, for log shippers.

    {"ts": "2026-12-01T15:35:00.123+00:00", "level": "INFO", "logger": "frecall.access",
     "msg": "POST /v1/query 200 3.1 ms", "key_id": "3f2a9c0d1e4b", "tenant": "acme", ...}

Fields a call passes as `extra={...}` are kept (the access log passes key_id, tenant,
method, route, status and duration_ms); an exception adds `exc_info` as text.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any, Final

#: The attributes every `LogRecord` has: anything else came in through `extra`.
_STANDARD: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        document: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name not in _STANDARD and not name.startswith("_"):
                document[name] = (
                    value if isinstance(value, str | int | float | bool) else str(value)
                )
        if record.exc_info:
            document["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(document, ensure_ascii=False)


def configure(level: int, fmt: str) -> None:
    """Logging for the process (CONVENTIONS 12: once, by the entry point)."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
