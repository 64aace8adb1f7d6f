"""mcp-widgets: MCP elicitation as ipywidgets forms, inline in the notebook cell that made the call.

The public surface is re-exported here. Names are resolved lazily so that the pure core
(`mcp_widgets.core`: schema, validation, outcomes) can be imported without ipywidgets, ipykernel or mcp.
"""


# Imported under private names: every public name of the module is in __all__ (test_exported_members.py).
import logging as _logging
import warnings as _warnings
from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from .core.card import Card, FormCard, Handler, LinkCard
from .core.completion import Completion
from .core.exceptions import (
    AnswerExpired,
    BlockingCallError,
    ConnectError,
    ConnectionClosedError,
    FieldNotFound,
    FormStateError,
    MalformedAnswer,
    MCPWidgetsError,
    RequestTimeout,
    SchemaError,
    ServerError,
    TooManyQuestions,
)
from .core.mcp_config import ConfigError
from .core.outcome import Action, Outcome, Reason
from .core.redaction import guard_logger as _guard_logger
from .core.schema import check_schema, validate_schema
from .core.signin_addresses import SignInError
from .core.spec import Problem
from .core.tools.signature import OutputSchemaError, ToolError
from .core.urls import UrlCheck, inspect_url
from .core.version import __version__

if _TYPE_CHECKING:
    from . import authoring, handlers
    from .authoring import ModelError, check_model
    from .client import (
        Call,
        PromptList,
        ResourceList,
        Server,
        ServerInfo,
        ToolList,
        get_default_handler,
        set_default_handler,
    )
    from .client.configs.table import servers

    # From where they are defined: in `client`, `connect` also names the submodule, which mypy would see.
    from .client.connect import connect, connect_sync
    from .client.questions.pending import pending
    from .client.server import wire
    from .playground import playground
    from .widgets import (
        AppView,
        ElicitationForm,
        FormState,
        PromptForm,
        SignInCard,
        TemplateForm,
        ToolForm,
        UrlCard,
        WireView,
        history,
        preview,
    )

# Every record of our logger (DEBUG too) loses URL credentials and query strings (tracebacks included).
_guard_logger(_logging.getLogger("mcp_widgets"))

# name -> module that defines it; imported on first access (ipywidgets and the SDK are not light).
_LAZY = {
    "Call": "mcp_widgets.client",
    "Server": "mcp_widgets.client",
    "ToolList": "mcp_widgets.client",
    "ResourceList": "mcp_widgets.client",
    "PromptList": "mcp_widgets.client",
    "ServerInfo": "mcp_widgets.client",
    "connect": "mcp_widgets.client",
    "connect_sync": "mcp_widgets.client",
    "get_default_handler": "mcp_widgets.client",
    "set_default_handler": "mcp_widgets.client",
    "AppView": "mcp_widgets.widgets",
    "ElicitationForm": "mcp_widgets.widgets",
    "FormState": "mcp_widgets.widgets",
    "SignInCard": "mcp_widgets.widgets",
    "PromptForm": "mcp_widgets.widgets",
    "TemplateForm": "mcp_widgets.widgets",
    "ToolForm": "mcp_widgets.widgets",
    "UrlCard": "mcp_widgets.widgets",
    "preview": "mcp_widgets.widgets",
    "history": "mcp_widgets.widgets",
    "playground": "mcp_widgets.playground",
    "check_model": "mcp_widgets.authoring",
    "ModelError": "mcp_widgets.authoring",
    "pending": "mcp_widgets.client.questions.pending",
    "servers": "mcp_widgets.client.configs.table",
    "wire": "mcp_widgets.client.server",
    "WireView": "mcp_widgets.widgets",
}
_LAZY_MODULES = {"handlers": "mcp_widgets.handlers", "authoring": "mcp_widgets.authoring"}
# One way each: mw.history() and mw.preview() make these (the types are in mcp_widgets.widgets).
_DEPRECATED = {"HistoryPanel": "mw.history(...)", "Preview": "mw.preview(...)"}

__all__ = [
    "Action",
    "AnswerExpired",
    "AppView",
    "BlockingCallError",
    "Call",
    "Card",
    "Completion",
    "ConfigError",
    "ConnectError",
    "ConnectionClosedError",
    "ElicitationForm",
    "FieldNotFound",
    "FormCard",
    "FormState",
    "FormStateError",
    "Handler",
    "LinkCard",
    "MCPWidgetsError",
    "MalformedAnswer",
    "ModelError",
    "Outcome",
    "OutputSchemaError",
    "Problem",
    "PromptForm",
    "PromptList",
    "Reason",
    "RequestTimeout",
    "ResourceList",
    "SchemaError",
    "Server",
    "ServerError",
    "ServerInfo",
    "SignInCard",
    "SignInError",
    "TemplateForm",
    "TooManyQuestions",
    "ToolError",
    "ToolForm",
    "ToolList",
    "UrlCard",
    "UrlCheck",
    "WireView",
    "__version__",
    "authoring",
    "check_model",
    "check_schema",
    "connect",
    "connect_sync",
    "get_default_handler",
    "handlers",
    "history",
    "inspect_url",
    "pending",
    "playground",
    "preview",
    "servers",
    "set_default_handler",
    "validate_schema",
    "wire",
]


def __getattr__(name: str) -> _Any:
    if name in _LAZY_MODULES:
        value = _import_module(_LAZY_MODULES[name])
    elif name in _LAZY:
        value = getattr(_import_module(_LAZY[name]), name)
    elif name in _DEPRECATED:
        _warnings.warn(
            f"mw.{name} is deprecated: use {_DEPRECATED[name]} (the type is mcp_widgets.widgets.{name})",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_import_module("mcp_widgets.widgets"), name)  # not cached: it warns every time
    else:
        raise AttributeError(f"module 'mcp_widgets' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


def load_ipython_extension(ipython: _Any) -> None:
    """`%load_ext mcp_widgets`: registers the `%mcp` magics (see `mcp_widgets.magics`)."""
    from .magics import load_ipython_extension as load

    load(ipython)
