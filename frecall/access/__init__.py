"""Who may see what: tenants (user ids scoped per application), API keys and principals,
per-key rate limits (docs/architecture.md, "Tenants and API keys")."""

from frecall.access.keys import LOCAL_OPERATOR, Keyring, KeyStore, Principal
from frecall.access.scoped import TenantView
from frecall.access.tenants import DEFAULT_TENANT, TenantError

__all__ = [
    "DEFAULT_TENANT",
    "LOCAL_OPERATOR",
    "KeyStore",
    "Keyring",
    "Principal",
    "TenantError",
    "TenantView",
]
