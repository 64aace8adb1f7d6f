"""The sign-in card in the calling cell (main thread): built, recorded, shown and answered like any card.

`present` is posted by the provider (`provider`) when the SDK is ready to send the person to the authorization
server. The handler answers it if there is one (no ready-made handler or headless policy ever accepts a
sign-in), else the person, if anyone is looking. Consent resolves the provider's future with the card; any
other end rejects it with a `SignInError` whose text says what happened and, when nobody could be asked, how
to sign in without a person. The history keeps one record per sign-in (mode "signin": the server, the
authorization server's host, the scopes, how it ended).
"""

from __future__ import annotations

import concurrent.futures
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, cast

from ... import kernel
from ...core.card import Handler
from ...core.history import default_history
from ...core.outcome import Action, Reason
from ...core.signin_addresses import HEADLESS_HELP, SignInError
from ..questions import answering
from ..questions.answering import pick_handler

if TYPE_CHECKING:
    from ...widgets import SignInCard
    from ..context import ServerContext

__all__ = ["present"]

log = logging.getLogger("mcp_widgets")


def present(
    ctx: ServerContext,
    place: Callable[[object], None],
    authorization_url: str,
    consent: concurrent.futures.Future[SignInCard],
    wire: Callable[[SignInCard], object],
) -> None:
    """Show the sign-in card for `authorization_url` and let the handler or the person answer it; `wire`
    connects the card to the provider first. `place` shows a line or a card outside any call."""
    question = SignInQuestion(ctx, place, authorization_url, consent, wire)
    if ctx.settings.output is None:  # under a display of its own, which ends as its closing line
        question.show = cast("Callable[[object], None]", _shown_until_final)
    try:
        answering.present(question)
    except BaseException as exc:
        if not consent.done():
            consent.set_exception(SignInError(f"signing in to {ctx.name!r} was interrupted"))
        if not isinstance(exc, Exception):
            raise


@dataclass(eq=False)
class SignInQuestion:
    """The sign-in card's way through `answering.present` (`Presented`): consent goes from the click to the
    provider's future in one step (`deliver`). No call is known; a refused address is only shown."""

    ctx: ServerContext
    say: Callable[[object], None]
    """Shows a line or a card outside any call."""
    authorization_url: str
    consent: concurrent.futures.Future[SignInCard]
    wire: Callable[[SignInCard], object]
    """Connects the card to the provider (its paste and Cancel), before anyone sees it."""
    show: Callable[[object], None] | None = None
    """Where the card is shown (None: where `say` shows)."""
    style: None = None
    request: None = None
    shown: bool = False

    @property
    def server(self) -> str:
        return self.ctx.name

    @property
    def chosen(self) -> tuple[Handler, Reason, str] | None:
        return pick_handler(self.ctx.settings.handler)

    def build(self) -> SignInCard | None:
        from ...widgets import SignInCard

        ctx, url = self.ctx, self.authorization_url
        try:
            return SignInCard(url, server=ctx.name, declared_name=ctx.learned.declared_name)
        except Exception as exc:
            failed = f"the sign-in card for {ctx.name!r} failed: {type(exc).__name__}"
            self.consent.set_exception(SignInError(failed))
            return None

    def prepare(self, card: SignInCard) -> None:
        self.wire(card)

    def deliver(self, card: SignInCard) -> None:
        _consented(self.ctx, self.consent, card)

    def write_history(self, card: SignInCard) -> None:
        _write_history(self.ctx, card)

    def place(self, card: SignInCard) -> None:
        (self.show or self.say)(card)

    def tell(self, text: str) -> None:
        self.say(text)

    def ask(self, card: SignInCard) -> bool:
        return card.check.allowed  # a refused address: its closing line says why


def _shown_until_final(card: SignInCard) -> None:
    """Show the card under a display id of its own; when the sign-in ends, that output becomes the card's
    closing line as plain text, so a notebook saved afterwards (and reopened without widget state) says how
    it ended, not "pending"."""
    if kernel.kernel_support() == "none":
        return  # nothing could show it
    display_id = f"mcp-widgets-signin-{uuid.uuid4().hex}"
    kernel.display_as(kernel.bundle_of(card), display_id)

    def ended(card: SignInCard) -> None:
        bundle = {"text/plain": card.summary}
        kernel.post(partial(kernel.display_as, bundle, display_id, update=True))

    card.add_final_callback(ended)


def _write_history(ctx: ServerContext, card: SignInCard) -> None:
    try:
        entry = default_history().begin(
            server=ctx.name,
            mode="signin",
            message=card.message,
            declared_name=ctx.learned.declared_name,
            url_host=card.auth_host,
            scopes=card.scopes,
        )
    except Exception:
        log.debug("recording a sign-in of %s failed", ctx.name, exc_info=True)
        return
    card.add_final_callback(lambda done: default_history().finish(entry.id, done.final_outcome))


def _consented(ctx: ServerContext, consent: concurrent.futures.Future[SignInCard], card: SignInCard) -> None:
    if consent.done():
        return
    outcome = card.outcome
    if outcome is not None and outcome.action is Action.ACCEPT:
        consent.set_result(card)
        return
    consent.set_exception(SignInError(refusal_text(ctx.name, card)))


def refusal_text(name: str, card: SignInCard) -> str:
    """Why there is no sign-in, for the error `connect` raises (no secret in it)."""
    outcome = card.outcome
    if outcome is None:
        return f"signing in to {name!r} did not happen"
    if outcome.reason is Reason.REFUSED_URL:
        return f"signing in to {name!r} was refused: {outcome.note}"
    if outcome.reason is Reason.POLICY or outcome.by == "headless":
        return (
            f"signing in to {name!r} needs a person, and none could be asked ({outcome.note}); "
            + HEADLESS_HELP
        )
    if outcome.reason is Reason.HANDLER:
        return f"signing in to {name!r} was {outcome.describe()}; {HEADLESS_HELP}"
    return f"signing in to {name!r} was {outcome.describe()}"
