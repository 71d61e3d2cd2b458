"""`frecall keys create|list|revoke`: the API keys of a deployment (only their hashes are
stored: in the data dir embedded, in Redis distributed). The CLI acts as the local operator:
whoever has the data dir or the Redis URL may manage keys."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing

from frecall.commands.common import emit
from frecall.settings import settings_from
from frecall.wiring import open_keyring
from workers.errors import ConfigError

#: Times in `keys list` (they are UTC).
STAMP = "%Y-%m-%dT%H:%M:%SZ"


def cmd_keys(args: argparse.Namespace) -> int:
    keyring = open_keyring(settings_from(args))
    with closing(keyring.store):
        if args.keys_command == "create":
            new = keyring.create(args.tenant, admin=args.admin, name=args.name or "")
            print(new.key)  # stdout: the key alone, for `KEY=$(frecall keys create …)`
            kind = "admin key" if args.admin else "key"
            print(
                f"created {kind} {new.record.key_id} for tenant {args.tenant}: store it now, "
                "it is not shown again",
                file=sys.stderr,
            )
            return 0
        if args.keys_command == "list":
            infos = keyring.list()
            if args.json:
                for info in infos:
                    emit(info.model_dump(mode="json"))
                return 0
            rows = [
                (
                    info.key_id,
                    info.tenant,
                    "admin" if info.admin else "tenant",
                    f"revoked {info.revoked_at:{STAMP}}" if info.revoked_at else "active",
                    f"created {info.created_at:{STAMP}}",
                    info.name,
                )
                for info in infos
            ]
            widths = [max((len(row[c]) for row in rows), default=0) for c in range(5)]
            for row in rows:  # aligned columns; the name (free text) last
                cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
                print("  ".join([*cells, row[5]]).rstrip())
            return 0
        revoked = keyring.revoke(args.key_id)
        if revoked is None:
            raise ConfigError(f"no key {args.key_id} (see `frecall keys list`)")
        print(f"revoked key {revoked.key_id} of tenant {revoked.tenant}", file=sys.stderr)
        return 0


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("keys", parents=[common], help="API keys: create, list, revoke")
    keys = p.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    c = keys.add_parser("create", parents=[common], help="print one new key on stdout")
    c.add_argument("--tenant", required=True, help="the tenant (application) the key acts in")
    c.add_argument("--admin", action="store_true", help="may name any tenant and manage keys")
    c.add_argument("--name", help="a label for people (who holds the key)")
    ls = keys.add_parser("list", parents=[common], help="every key (no secrets)")
    ls.add_argument("--json", action="store_true", help="one JSON object a line")
    r = keys.add_parser("revoke", parents=[common], help="refuse a key from now on")
    r.add_argument("key_id", help="the key id (`frecall keys list`; the key's 2nd part)")
