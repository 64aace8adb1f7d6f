"""An app's `ui/open-link` as a URL card on the path every card takes (main thread): built, recorded, placed
under the app and answered by the handler, else the person (`answering.present`).

A refused address is declined as its card is built (its closing line says why), recorded and only shown. The
app hears `answered(True)` on consent and `answered(False)` on any other end. The history keeps one record
per link: mode "url", the app as its source ("app", the tool's name) and the address's host only, never its
path or query (an app may put what the person typed there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.history import default_history
from ...core.outcome import Action
from ..questions import answering
from ..questions.answering import pick_handler
from .bridge import CALLS_SHOWN, show_in

if TYPE_CHECKING:
    from ...core.card import Handler
    from ...core.outcome import Reason
    from ...widgets import AppView, UrlCard
    from ..context import ServerContext

__all__ = ["MESSAGE", "present"]

log = logging.getLogger("mcp_widgets.apps")

MESSAGE = "The app asks to open this page."


def present(ctx: ServerContext, view: AppView, url: str, answered: Callable[[bool], None]) -> None:
    """Show the card for the app in `view` asking to open `url`; `answered` hears whether it was agreed to."""
    answering.present(LinkQuestion(ctx, view, url, answered))


@dataclass(eq=False)
class LinkQuestion:
    """An app's link card's way through `answering.present` (`Presented`): consent goes from the click to
    the app in one step (`deliver`). No call waits on it (the app does); a refused address is only shown."""

    ctx: ServerContext
    view: AppView
    url: str
    answered: Callable[[bool], None]
    style: None = None
    request: None = None
    shown: bool = False

    @property
    def server(self) -> str:
        return self.ctx.name

    @property
    def chosen(self) -> tuple[Handler, Reason, str] | None:
        return pick_handler(self.ctx.settings.handler)

    def build(self) -> UrlCard | None:
        from ...widgets import UrlCard

        ctx = self.ctx
        try:
            return UrlCard(MESSAGE, self.url, server=ctx.name, declared_name=ctx.learned.declared_name)
        except Exception:
            log.exception("building the card for an app's link from %s failed", ctx.name)
            self.answered(False)
            return None

    def prepare(self, card: UrlCard) -> None:
        pass

    def deliver(self, card: UrlCard) -> None:
        outcome = card.outcome
        self.answered(outcome is not None and outcome.action is Action.ACCEPT)

    def write_history(self, card: UrlCard) -> None:
        _write_history(self.ctx, app_name(self.view), card)

    def place(self, card: UrlCard) -> None:
        show_in(self.view.calls, card, keep=CALLS_SHOWN)

    def tell(self, text: str) -> None:
        self.view.say(text)

    def ask(self, card: UrlCard) -> bool:
        return card.check.allowed  # a refused address: its closing line says why


def app_name(view: AppView) -> str:
    """What names the app in the history: its tool, else (an app answering a question) its `ui://` URI,
    without a query or fragment."""
    return view.tool or view.resource_uri.split("#", 1)[0].split("?", 1)[0]


def _write_history(ctx: ServerContext, app: str, card: UrlCard) -> None:
    try:
        entry = default_history().begin(
            server=ctx.name,
            mode="url",
            message=card.message,
            declared_name=ctx.learned.declared_name,
            source=("app", app),
            url=card.url,  # kept as its host only
        )
    except Exception:  # the history must never stop a card from being shown
        log.exception("recording an app's link from %s in the history failed", ctx.name)
        return
    card.add_done_callback(lambda done: default_history().finish(entry.id, done.outcome))
