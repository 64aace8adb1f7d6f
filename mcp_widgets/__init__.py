"""mcp-widgets: MCP elicitation as ipywidgets forms, inline in the notebook cell that made the call.

The public surface is re-exported here. Names are resolved lazily so that the pure core
(`mcp_widgets.core`: schema, validation, outcomes) can be imported without ipywidgets, ipykernel or mcp.
"""

# Imported under private names: every public name of the module is in __all__ (test_exported_members.py).
import logging as _logging
import warnings as _warnings
from importlib import import_module as _import_module
from types import ModuleType as _ModuleType
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

# The public names, each written once: the eager ones (the pure core's, light) here, the lazy ones under
# `if _TYPE_CHECKING:` below, read from this file's source at import. `X as X` marks a re-export for type
# checkers (the typing spec's convention), since `__all__` is computed from these imports.
from .core.card import Card as Card
from .core.card import FormCard as FormCard
from .core.card import Handler as Handler
from .core.card import LinkCard as LinkCard
from .core.completion import Completion as Completion
from .core.exceptions import AnswerExpired as AnswerExpired
from .core.exceptions import BlockingCallError as BlockingCallError
from .core.exceptions import ConnectError as ConnectError
from .core.exceptions import ConnectionClosedError as ConnectionClosedError
from .core.exceptions import FieldNotFound as FieldNotFound
from .core.exceptions import FormStateError as FormStateError
from .core.exceptions import MalformedAnswer as MalformedAnswer
from .core.exceptions import MCPWidgetsError as MCPWidgetsError
from .core.exceptions import RequestTimeout as RequestTimeout
from .core.exceptions import SchemaError as SchemaError
from .core.exceptions import ServerError as ServerError
from .core.exceptions import TooManyQuestions as TooManyQuestions
from .core.mcp_config import ConfigError as ConfigError
from .core.outcome import Action as Action
from .core.outcome import Outcome as Outcome
from .core.outcome import Reason as Reason
from .core.redaction import guard_logger as _guard_logger
from .core.schema import check_schema as check_schema
from .core.schema import validate_schema as validate_schema
from .core.signin_addresses import SignInError as SignInError
from .core.spec import Problem as Problem
from .core.tools.signature import OutputSchemaError as OutputSchemaError
from .core.tools.signature import ToolError as ToolError
from .core.urls import UrlCheck as UrlCheck
from .core.urls import inspect_url as inspect_url
from .core.version import __version__ as __version__

if _TYPE_CHECKING:  # the lazy names: ipywidgets and the SDK are not light, so each is imported on first use
    from . import authoring as authoring
    from . import handlers as handlers
    from .authoring import ModelError as ModelError
    from .authoring import check_model as check_model
    from .client import Call as Call
    from .client import PromptList as PromptList
    from .client import ResourceList as ResourceList
    from .client import Server as Server
    from .client import ServerInfo as ServerInfo
    from .client import ToolList as ToolList
    from .client import get_default_handler as get_default_handler
    from .client import set_default_handler as set_default_handler
    from .client.configs.table import servers as servers

    # From where they are defined: in `client`, `connect` also names the submodule, which mypy would see.
    from .client.connect import connect as connect
    from .client.connect import connect_sync as connect_sync
    from .client.questions.pending import pending as pending
    from .client.server import wire as wire
    from .playground import playground as playground
    from .widgets import AppView as AppView
    from .widgets import ElicitationForm as ElicitationForm
    from .widgets import FormState as FormState
    from .widgets import PromptForm as PromptForm
    from .widgets import SignInCard as SignInCard
    from .widgets import TemplateForm as TemplateForm
    from .widgets import ToolForm as ToolForm
    from .widgets import UrlCard as UrlCard
    from .widgets import WireView as WireView
    from .widgets import history as history
    from .widgets import preview as preview

# Every record of our logger (DEBUG too) loses URL credentials and query strings (tracebacks included).
_guard_logger(_logging.getLogger("mcp_widgets"))


def _lazy_imports() -> dict[str, tuple[str, str | None]]:
    """name -> (module, attribute; None for a module itself), read from the imports under `if _TYPE_CHECKING:`
    in this file: the one place a lazy name is written (lazy_loader reads a stub file the same way)."""
    import ast

    # The loader's source: a file, or a member of a zip archive (zipimport) alike.
    get_source = getattr(__spec__.loader, "get_source", None)
    source = get_source(__name__) if get_source is not None else None
    if source is None:
        raise ImportError("mcp_widgets needs its source to resolve its public names (it ships as source)")
    tree = ast.parse(source)
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "_TYPE_CHECKING")
    names: dict[str, tuple[str, str | None]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.unparse(node)
        module = f"{__name__}.{node.module}" if node.module else __name__
        for alias in node.names:
            if node.module is None:  # `from . import authoring`: the submodule itself
                names[alias.asname or alias.name] = (f"{__name__}.{alias.name}", None)
            else:
                names[alias.asname or alias.name] = (module, alias.name)
    return names


_LAZY = _lazy_imports()
# One way each: mw.history() and mw.preview() make these (the types are in mcp_widgets.widgets).
_DEPRECATED = {"HistoryPanel": "mw.history(...)", "Preview": "mw.preview(...)"}

__all__ = sorted(
    {n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, _ModuleType)}
    | {"__version__"}
    | set(_LAZY)
)


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = _import_module(module) if attribute is None else getattr(_import_module(module), attribute)
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
