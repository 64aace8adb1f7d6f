"""The widgets of mcp-widgets."""

from ._app_view import AppView
from ._call_line import CallLine as CallLine  # for the client room (a call's whole display)
from ._call_line import LineDrawnForm as LineDrawnForm
from ._call_line import LineDrawnUrlCard as LineDrawnUrlCard
from ._call_panel import CallPanel as CallPanel  # for the client room, like the four below (not public)
from ._call_panel import Note as Note
from ._call_panel import text_line as text_line
from ._config_widgets import InputsCard as InputsCard  # for the client room (`mw.servers()`)
from ._config_widgets import ServersTable as ServersTable
from ._explorer import Explorer
from ._explorer import ExplorerParts as ExplorerParts  # for the client room (`srv.explore()`)
from ._explorer import Listing as Listing
from ._explorer import Row as Row
from ._form import ElicitationForm, FormState
from ._history import HistoryPanel
from ._history import history as history
from ._markdown import MarkdownOffer as MarkdownOffer  # for the client room (a Markdown resource read)
from ._pending import PendingItem as PendingItem  # for the client room (`mw.pending()`)
from ._pending import PendingList as PendingList
from ._pending import waited_text as waited_text
from ._plain import PlainInMarimo as PlainInMarimo  # for the façade (the playground)
from ._preview import Preview, preview
from ._prompt_forms import PromptForm, TemplateForm
from ._prompt_forms import prompt_form as prompt_form
from ._prompt_forms import template_form as template_form
from ._signin_card import SignInCard
from ._tool_form import ToolForm
from ._tool_form import tool_form as tool_form
from ._url_card import UrlCard
from ._watch_view import WatchView
from ._wire_view import WireView

__all__ = [
    "AppView",
    "ElicitationForm",
    "Explorer",
    "FormState",
    "HistoryPanel",
    "Preview",
    "PromptForm",
    "SignInCard",
    "TemplateForm",
    "ToolForm",
    "UrlCard",
    "WatchView",
    "WireView",
    "preview",
]
