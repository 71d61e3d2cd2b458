from frecall.sdk import AsyncClient as AsyncClient
from frecall.sdk import Client as Client
from frecall.sdk import Memory as Memory

__all__ = ["AsyncClient", "Client", "Memory"]
