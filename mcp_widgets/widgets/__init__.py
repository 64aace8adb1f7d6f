"""The widgets of mcp-widgets."""

from ._form import ElicitationForm, FormState
from ._history import HistoryPanel
from ._preview import Preview, preview
from ._tool_form import ToolForm
from ._url_card import UrlCard

__all__ = ["ElicitationForm", "FormState", "HistoryPanel", "Preview", "ToolForm", "UrlCard", "preview"]
