"""Fortunate Recall: long-term memory for LLM chat platforms that knows which facts are
current.

    from frecall import Memory, Client, AsyncClient

The SDK (frecall/sdk/) loads on first use of one of its names: the command line imports
this package on every invocation, and must not pay for httpx and the deployments there
(nor for `typing`: the names' types are in `__init__.pyi`).
"""

__all__ = ["AsyncClient", "Client", "Memory"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from frecall import sdk

        return getattr(sdk, name)
    raise AttributeError(f"module 'frecall' has no attribute {name!r}")
