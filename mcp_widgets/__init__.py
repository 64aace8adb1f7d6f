"""mcp-widgets: MCP elicitation as ipywidgets forms, inline in the notebook cell that made the call.

The public surface is re-exported here. Names are resolved lazily so that the pure core
(`mcp_widgets._schema`, `_validation`, `_outcome`) can be imported without ipywidgets, ipykernel or mcp.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._exceptions import FieldNotFound, FormStateError, MCPWidgetsError, SchemaError
from ._outcome import Action, Outcome, Reason
from ._schema import Problem, check_schema, validate_schema
from ._version import __version__

if TYPE_CHECKING:
    from .widgets import ElicitationForm, FormState, preview

# name -> module that defines it; imported on first access.
_LAZY = {
    "ElicitationForm": "mcp_widgets.widgets",
    "FormState": "mcp_widgets.widgets",
    "preview": "mcp_widgets.widgets",
}

__all__ = [
    "Action",
    "ElicitationForm",
    "FieldNotFound",
    "FormState",
    "FormStateError",
    "MCPWidgetsError",
    "Outcome",
    "Problem",
    "Reason",
    "SchemaError",
    "__version__",
    "check_schema",
    "preview",
    "validate_schema",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_widgets' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
