"""`Card`: what a question shown to the person offers the code that answers it (pure: a protocol only).

Forms (`widgets.ElicitationForm`, kind "form"), URL cards (`widgets.UrlCard`, kind "url") and sign-in cards
(`widgets.SignInCard`, kind "signin") satisfy it; so will later kinds (a task's question). Handlers, the
history, the console and the fastmcp adapter take a `Card` and decide by `kind`, never by which attributes a
card happens to have.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from .outcome import Action, Outcome, Reason

__all__ = ["KINDS", "Card", "FormCard", "Handler", "LinkCard"]

KINDS = ("form", "url", "signin")
"""The kinds of card this version makes; a handler must not assume a kind it does not know is harmless."""


@runtime_checkable
class Card(Protocol):
    """One question in front of the person: it resolves once, with an `Outcome` and a `result`."""

    @property
    def kind(self) -> str:
        """ "form", "url", "signin" (later a task's question)."""

    @property
    def server(self) -> str:
        """The name we know the asking server by."""

    @property
    def declared_name(self) -> str | None:
        """What the server calls itself, or None."""

    @property
    def message(self) -> str:
        """The server's message."""

    @property
    def outcome(self) -> Outcome | None:
        """How it ended, or None while pending."""

    @property
    def result(self) -> Any:
        """What the server receives (an `ElicitResult`), or None while pending."""

    def accept(self) -> bool:
        """Click Accept (a URL card: consent); False when refused or already resolved."""

    def decline(self) -> bool:
        """Click Decline; False once resolved."""

    def cancel(self) -> bool:
        """Click Cancel; False once resolved."""

    def finish(
        self, action: Action | str, *, reason: Reason | str, by: str | None = None, note: str = ""
    ) -> bool:
        """End it without a click; True when this call resolved it."""

    def acting_as(self, reason: Reason | str, *, by: str | None) -> AbstractContextManager[Any]:
        """Clicks made inside are recorded as `reason` / `by` instead of the person."""

    def add_done_callback(self, fn: Callable[[Any], object]) -> None:
        """Call `fn(card)` once it resolves (at once if it has)."""

    def close(self) -> None:
        """Take it away (its widget models are closed; a pending card ends as withdrawn)."""


@runtime_checkable
class FormCard(Card, Protocol):
    """A card with fields: a handler can fill them before accepting."""

    def fill(self, **values: Any) -> None:
        """Enter values as a person would."""

    @property
    def errors(self) -> dict[str, str]:
        """Every invalid field and why (rule messages only, never a value)."""

    @property
    def field_names(self) -> tuple[str, ...]:
        """The fields, in the schema's order."""


@runtime_checkable
class LinkCard(Card, Protocol):
    """A card that offers one web address to open, only in the click that consents: a URL card ("url") or
    a sign-in card ("signin"). A handler written for one works for the other."""

    @property
    def url(self) -> str:
        """The full address offered (a sign-in card also calls it `authorization_url`)."""


Handler = Callable[[Card], Awaitable[None]]
"""Answers a card: reads `kind`, fills a `FormCard`, reads a `LinkCard`'s `url`, then accepts, declines or
cancels (docs/handlers.md). Passed as `connect(..., handler=...)` or `mw.set_default_handler(...)`."""
