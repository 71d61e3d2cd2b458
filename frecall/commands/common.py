"""What the commands share: times from flags, JSON output, the deployment of a command."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from frecall.access.scoped import TenantView
from frecall.access.tenants import check_tenant
from frecall.deployment import Deployment
from frecall.settings import settings_from
from frecall.wiring import open_deployment
from schemas.events import UtcDatetime
from workers.errors import ConfigError

_TIME = TypeAdapter(UtcDatetime)


def parse_time(raw: str | None, flag: str) -> datetime | None:
    if raw is None:
        return None
    try:
        return _TIME.validate_python(raw)
    except ValidationError as exc:
        raise ConfigError(f"{flag}: not an ISO 8601 time: {raw!r}") from exc


def emit(document: Any) -> None:
    print(json.dumps(document, ensure_ascii=False))


def deployment_of(args: argparse.Namespace, **options: Any) -> Deployment:
    """The deployment the command's settings describe (`open_deployment` options)."""
    return open_deployment(settings_from(args), **options)


def tenant_deployment(args: argparse.Namespace, **options: Any) -> TenantView:
    """The command's deployment as its `--tenant` sees it (the CLI acts as the operator:
    any tenant). Closing it closes the deployment."""
    tenant = check_tenant(args.tenant)  # before anything is opened
    return TenantView(deployment_of(args, **options), tenant, owns=True)
