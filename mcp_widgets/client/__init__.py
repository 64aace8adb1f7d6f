"""The client room: the MCP SDK session, calls, answering, URL mode, call displays and listings.

It builds on every other room (core, kernel, widgets). `Server` (server.py) is a thin facade over the parts
it holds: a `Connection` (connection.py), an `Intake` (questions/intake.py: a question comes in), a
`CallDisplay` (display.py: the call's panel), a `Runner` (running.py: the steps every call shares) and a
`Catalog` (catalog.py: listings). Each feature has a folder: `questions/`, `signin/`, `tasks/`, `apps/`,
`wire/`, `configs/`, `live/` (a resource's updates, live views, list changes); `completion` asks a server's
completions (for `srv.complete` and the forms' suggestions).
The map and the path of one elicitation: docs/architecture.md.
"""

from ..core.card import Handler
from ..core.exceptions import AnswerExpired, ConnectError, ConnectionClosedError, RequestTimeout, ServerError
from .call import Call
from .connect import connect, connect_sync
from .listings import PromptList, ResourceList, ServerInfo, ToolList
from .live import Update, Updates, Watch
from .questions.answering import get_default_handler, set_default_handler
from .server import Server
from .wire.wire import Wire, Wires

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
    "Update",
    "Updates",
    "Watch",
    "Wire",
    "Wires",
    "connect",
    "connect_sync",
    "get_default_handler",
    "set_default_handler",
]
