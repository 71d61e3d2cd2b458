"""`frecall mcp`: the memory as an MCP server (the official `mcp` SDK, major version 2).

Tools: `remember`, `recall`, `forget`, `inspect` (frecall/mcp/tools.py), over stdio or
Streamable HTTP (frecall/mcp/run.py). The tenant and the user are the session's, never a
tool argument: stdio from `--tenant`/`--user`; over HTTP the tenant from the API key and
the user from the `X-User-Id` header (frecall/mcp/sessions.py).
"""
