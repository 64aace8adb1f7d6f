"""The client room: the MCP SDK session, calls, answering, URL flow, call displays and listings.

It builds on every other room (core, kernel, widgets). `Server` (server.py) is a thin facade over the
parts it holds: a `Connection` (connection.py), an `Intake` (intake.py: a question comes in), a
`CallDisplay` (display.py: the call's panel), a `Runner` (running.py: the steps every call shares) and a
`Catalog` (catalog.py: listings). `answering` decides who answers a card (handler, policy or person), with
`call` (one call in flight), `runtime` (the client thread), `targets` (what to connect to, transports),
`privacy`, `url_flow` (URL mode), `rounds` (2026-07-28 rounds that expire), `console` (a terminal),
`completing` (a server's completions, for `srv.complete` and the forms' suggestions) and `listings` (tables).
"""

from ..core.card import Handler
from ..core.exceptions import AnswerExpired, ConnectError, ConnectionClosedError, RequestTimeout, ServerError
from .answering import get_default_handler, set_default_handler
from .call import Call
from .connect import connect, connect_sync
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .server import Server
from .wire import Wire, Wires

__all__ = [
    "AnswerExpired",
    "Call",
    "ConnectError",
    "ConnectionClosedError",
    "Handler",
    "PromptList",
    "RequestTimeout",
    "ResourceList",
    "Server",
    "ServerError",
    "ServerInfo",
    "ToolList",
    "Wire",
    "Wires",
    "connect",
    "connect_sync",
    "get_default_handler",
    "set_default_handler",
]
