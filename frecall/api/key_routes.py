"""Key management over HTTP (admin keys only): what `frecall keys` does on the command line.

Keys are global to the deployment: an admin key manages every tenant's keys. A new key is
in the response once; only its hash is stored.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi import Path as PathParam

from frecall.access.keys import KEY_ID_PATTERN, KeyInfo, Keyring
from frecall.api.deps import AUTH_ERRORS, AdminDep, gate_of
from frecall.api.models import ErrorBody, KeyCreate, NewKeyOut, ValidationErrorBody

log = logging.getLogger(__name__)

KeyIdPath = Annotated[str, PathParam(pattern=KEY_ID_PATTERN)]
ERRORS: dict[int | str, dict[str, Any]] = {
    **AUTH_ERRORS,
    422: {"model": ValidationErrorBody},
    503: {"model": ErrorBody, "description": "the key store failed"},
}

router = APIRouter(tags=["keys"])


def _keyring(request: Request) -> Keyring:
    keyring = gate_of(request).keyring
    if keyring is None:
        raise HTTPException(404, "this server has no key store")
    return keyring


@router.post(
    "/v1/keys",
    response_model=NewKeyOut,
    status_code=201,
    responses={**ERRORS, 404: {"model": ErrorBody}},
)
def create_key(body: KeyCreate, request: Request, caller: AdminDep) -> NewKeyOut:
    """A new key for a tenant (`frecall keys create`): shown in this response only."""
    new = _keyring(request).create(body.tenant, admin=body.admin, name=body.name)
    log.info("key %s created key %s for tenant %s", caller.label, new.record.key_id, body.tenant)
    return NewKeyOut(key=new.key, **KeyInfo.model_validate(new.record.model_dump()).model_dump())


@router.get(
    "/v1/keys", response_model=list[KeyInfo], responses={**ERRORS, 404: {"model": ErrorBody}}
)
def list_keys(request: Request, caller: AdminDep) -> list[KeyInfo]:
    """Every key of the deployment, revoked ones included, oldest first (no secrets)."""
    return _keyring(request).list()


@router.delete(
    "/v1/keys/{key_id}",
    response_model=KeyInfo,
    responses={**ERRORS, 404: {"model": ErrorBody, "description": "no such key"}},
)
def revoke_key(key_id: KeyIdPath, request: Request, caller: AdminDep) -> KeyInfo:
    """Revoke a key (`frecall keys revoke`): refused from the next request on."""
    info = _keyring(request).revoke(key_id)
    if info is None:
        raise HTTPException(404, f"no key {key_id}")
    log.info("key %s revoked key %s", caller.label, key_id)
    return info
