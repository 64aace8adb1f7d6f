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
from functools import partial
from typing import TYPE_CHECKING

from ...core.history import default_history
from ...core.outcome import Action
from ..questions import answering
from ..questions.answering import pick_handler
from .bridge import CALLS_SHOWN, show_in

if TYPE_CHECKING:
    from ...widgets import AppView, UrlCard
    from ..context import ServerContext

__all__ = ["MESSAGE", "present"]

log = logging.getLogger("mcp_widgets.apps")

MESSAGE = "The app asks to open this page."


def present(ctx: ServerContext, view: AppView, url: str, answered: Callable[[bool], None]) -> None:
    """Show the card for the app in `view` asking to open `url`; `answered` hears whether it was agreed to."""
    from ...widgets import UrlCard

    def build() -> UrlCard | None:
        try:
            return UrlCard(MESSAGE, url, server=ctx.name, declared_name=ctx.learned.declared_name)
        except Exception:
            log.exception("building the card for an app's link from %s failed", ctx.name)
            answered(False)
            return None

    def delivered(card: UrlCard) -> None:
        outcome = card.outcome
        answered(outcome is not None and outcome.action is Action.ACCEPT)

    answering.present(
        build,
        deliver=delivered,
        record=partial(_record, ctx, app_name(view)),
        place=lambda card: show_in(view.calls, card, keep=CALLS_SHOWN),
        tell=view.say,
        chosen=pick_handler(ctx.settings.handler),
        server=ctx.name,
        style=None,  # no call waits on it: the app does
        ask=lambda card: card.check.allowed,  # a refused address: its closing line says why
    )


def app_name(view: AppView) -> str:
    """What names the app in the history: its tool, else (an app answering a question) its `ui://` URI,
    without a query or fragment."""
    return view.tool or view.resource_uri.split("#", 1)[0].split("?", 1)[0]


def _record(ctx: ServerContext, app: str, card: UrlCard) -> None:
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
