"""A demo MCP server whose tools ask the person questions: every elicitation shape, both protocol generations.

Run it: `python -m mcp_widgets.demo` (stdio), `python -m mcp_widgets.demo --http` (streamable HTTP on
http://127.0.0.1:8000/mcp). Use it in-process: `from mcp_widgets.demo import server` (one shared instance,
made on first use) or `create_server()` (a fresh one with its own simulated files).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._server import DemoServer, create_server
from ._signin import DEFAULT_SIGN_IN_PORT

if TYPE_CHECKING:
    server: DemoServer

__all__ = ["DEFAULT_SIGN_IN_PORT", "DemoServer", "create_server", "server"]

_shared: DemoServer | None = None


def __getattr__(name: str) -> Any:
    # `server` is made on first access, so importing the package has no side effects.
    global _shared
    if name == "server":
        if _shared is None:
            _shared = create_server()
        return _shared
    raise AttributeError(f"module 'mcp_widgets.demo' has no attribute {name!r}")
