"""mcp-widgets: MCP elicitation as ipywidgets forms, inline in the notebook cell that made the call.

The public surface is re-exported here. Names are resolved lazily so that the pure core
(`mcp_widgets._schema`, `_validation`, `_outcome`) can be imported without ipywidgets, ipykernel or mcp.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._exceptions import (
    BlockingCallError,
    ConnectError,
    ConnectionClosedError,
    FieldNotFound,
    FormStateError,
    MCPWidgetsError,
    RequestTimeout,
    SchemaError,
    ServerError,
)
from ._outcome import Action, Outcome, Reason
from ._schema import Problem, check_schema, validate_schema
from ._urls import UrlCheck, inspect_url
from ._version import __version__

if TYPE_CHECKING:
    from . import handlers
    from ._client import (
        Call,
        Server,
        connect,
        connect_sync,
        get_default_handler,
        set_default_handler,
    )
    from ._listings import PromptList, ResourceList, ServerInfo, ToolList
    from .playground import playground
    from .widgets import ElicitationForm, FormState, HistoryPanel, Preview, ToolForm, UrlCard, preview
    from .widgets._history import history

# name -> module that defines it; imported on first access (ipywidgets and the SDK are not light).
_LAZY = {
    "Call": "mcp_widgets._client",
    "Server": "mcp_widgets._client",
    "ToolList": "mcp_widgets._listings",
    "ResourceList": "mcp_widgets._listings",
    "PromptList": "mcp_widgets._listings",
    "ServerInfo": "mcp_widgets._listings",
    "connect": "mcp_widgets._client",
    "connect_sync": "mcp_widgets._client",
    "get_default_handler": "mcp_widgets._client",
    "set_default_handler": "mcp_widgets._client",
    "ElicitationForm": "mcp_widgets.widgets",
    "FormState": "mcp_widgets.widgets",
    "HistoryPanel": "mcp_widgets.widgets",
    "Preview": "mcp_widgets.widgets",
    "ToolForm": "mcp_widgets.widgets",
    "UrlCard": "mcp_widgets.widgets",
    "preview": "mcp_widgets.widgets",
    "history": "mcp_widgets.widgets._history",
    "playground": "mcp_widgets.playground",
}
_LAZY_MODULES = {"handlers": "mcp_widgets.handlers"}

__all__ = [
    "Action",
    "BlockingCallError",
    "Call",
    "ConnectError",
    "ConnectionClosedError",
    "ElicitationForm",
    "FieldNotFound",
    "FormState",
    "FormStateError",
    "HistoryPanel",
    "MCPWidgetsError",
    "Outcome",
    "Preview",
    "Problem",
    "PromptList",
    "Reason",
    "RequestTimeout",
    "ResourceList",
    "SchemaError",
    "Server",
    "ServerError",
    "ServerInfo",
    "ToolForm",
    "ToolList",
    "UrlCard",
    "UrlCheck",
    "__version__",
    "check_schema",
    "connect",
    "connect_sync",
    "get_default_handler",
    "handlers",
    "history",
    "inspect_url",
    "playground",
    "preview",
    "set_default_handler",
    "validate_schema",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY_MODULES:
        value = import_module(_LAZY_MODULES[name])
    elif name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'mcp_widgets' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext mcp_widgets`: registers the `%mcp` magics (see `mcp_widgets.magics`)."""
    from .magics import load_ipython_extension as load

    load(ipython)
