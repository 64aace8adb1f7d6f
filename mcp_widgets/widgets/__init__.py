"""The widgets of mcp-widgets."""

from ._form import ElicitationForm, FormState
from ._preview import Preview, preview

__all__ = ["ElicitationForm", "FormState", "Preview", "preview"]
