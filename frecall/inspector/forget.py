"""Forget a fact or a whole user from the page: a confirmation, then the erasure through
the deployment (every store, the log included: docs/architecture.md, "Forget"), then the
receipt it returned."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Form, Query
from starlette.exceptions import HTTPException
from starlette.responses import Response

from frecall.inspector.pages import flat, inspection_of
from frecall.inspector.render import page
from frecall.inspector.visitor import VisitorDep, check_csrf

log = logging.getLogger(__name__)
router = APIRouter(include_in_schema=False)


@router.get("/ui/users/{user_id}/forget")
def confirm(
    user_id: str,
    visitor: VisitorDep,
    fact: Annotated[str | None, Query(max_length=200)] = None,
) -> Response:
    inspection = inspection_of(visitor.view, user_id, None)
    target = None
    if fact:
        target = next((f for f in flat(inspection) if f.edge_id == fact), None)
        if target is None:
            raise HTTPException(404, f"user {user_id!r} has no fact {fact!r}")
    return page(
        "forget.html",
        visitor=visitor,
        user_id=user_id,
        fact=target,
        facts=inspection.facts,
    )


@router.post("/ui/users/{user_id}/forget")
def forget(
    user_id: str,
    visitor: VisitorDep,
    csrf: Annotated[str, Form(max_length=128)] = "",
    fact: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    check_csrf(visitor, csrf)
    receipt = visitor.view.forget(user_id, fact or None)
    log.info(
        "inspector: key %s forgot tenant %s user %s edge %s: %s",
        visitor.principal.label,
        visitor.tenant,
        user_id,
        fact or None,
        receipt.removed,
    )
    return page(
        "receipt.html",
        visitor=visitor,
        user_id=user_id,
        receipt=receipt,
        removed_total=sum(receipt.removed.values()),
    )
