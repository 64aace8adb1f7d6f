"""Ready-made handlers: answer a server's questions without a person (tests, demos, headless runs).

A handler is `async def handler(card) -> None`. It gets the `Card` built for the request and acts on it as a
person would (`fill`, `accept`, `decline`, `cancel`); the answer is recorded as the handler's, by name. Use
one per server (`connect(..., handler=...)`) or for all (`set_default_handler`); headless runs can pick
`decline`, `cancel` or `accept_defaults` with the environment variable `MCP_WIDGETS_HANDLER`.

What each one does, by the card's `kind`:

    kind        accept_defaults                  scripted "accept" / dict       decline  cancel
    "form"      accept as it comes, if valid,    accept (dict: fill, accept);   decline  cancel
                else decline                     refused -> the handler fails
    "url"       decline (never opens a page)     "accept" consents; a dict      decline  cancel
                                                 fails (not a form)
    "signin"    decline (connect raises          fails (raises ValueError)      decline  cancel
                SignInError)
    any other   decline                          fails (raises ValueError)      decline  cancel

No ready-made handler and no headless policy ever accepts a sign-in (or any kind it does not know): a
sign-in grants access, and only the person may agree to that. `scripted` "decline" and "cancel" work for
every kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from .core.card import Card, FormCard

__all__ = ["accept_defaults", "cancel", "decline", "scripted"]

_ACCEPTABLE = ("form", "url")
"""The kinds `scripted` may accept; every other kind (a sign-in) is the person's to accept."""


async def decline(card: Card) -> None:
    """Decline every request (any kind)."""
    card.decline()


async def cancel(card: Card) -> None:
    """Cancel every request (any kind): dismiss without answering."""
    card.cancel()


async def accept_defaults(card: Card) -> None:
    """Accept a form as it comes (its defaults); decline a form whose defaults are not enough, and every
    other kind (a URL card, a sign-in)."""
    # Clicks, not finish(): the answer is recorded as whoever runs this (a handler, or a headless policy).
    if card.kind == "form" and card.accept():
        return
    card.decline()


class _Scripted:
    """Answers requests in order from a list; see `scripted`."""

    __name__ = "scripted"

    def __init__(self, answers: Iterable[Mapping[str, Any] | str]) -> None:
        self._answers = list(answers)
        self._used = 0

    @property
    def remaining(self) -> int:
        """How many answers are left."""
        return len(self._answers) - self._used

    async def __call__(self, card: Card) -> None:
        if self._used >= len(self._answers):
            raise LookupError(f"scripted handler has no answer left ({len(self._answers)} given)")
        answer = self._answers[self._used]
        self._used += 1
        if isinstance(answer, str):
            verb = answer.lower()
            if verb not in ("accept", "decline", "cancel"):
                raise ValueError(f"scripted answer {verb!r} is not 'accept', 'decline', 'cancel' or a dict")
            if verb == "decline":
                card.decline()
            elif verb == "cancel":
                card.cancel()
            else:
                _check_acceptable(card)
                if not card.accept():
                    raise ValueError(f"scripted accept was refused: {_problems(card)}")
            return
        _check_acceptable(card)
        if card.kind != "form":
            raise TypeError(f"scripted answer is a dict, but the request is a {card.kind!r} card, not a form")
        form = cast(FormCard, card)
        form.fill(**dict(answer))
        if not form.accept():
            raise ValueError(f"scripted answer was refused: {_problems(form)}")

    def __repr__(self) -> str:
        return f"<scripted handler: {self._used} of {len(self._answers)} answers used>"


def _check_acceptable(card: Card) -> None:
    if card.kind not in _ACCEPTABLE:
        raise ValueError(f"scripted handlers never accept a {card.kind!r} card: only the person may")


def _problems(card: Card) -> str:
    errors = cast(FormCard, card).errors if card.kind == "form" else {}
    # Field names and rule messages only: never the values.
    return "; ".join(f"{name}: {message}" for name, message in sorted(errors.items())) or "invalid"


def scripted(answers: Iterable[Mapping[str, Any] | str]) -> _Scripted:
    """A handler that answers requests in order.

    Args:
        answers: One entry per request: a dict of field values (a form: filled in, then accepted), or
            "accept" (a form as it comes, a URL card's consent), "decline" or "cancel" (any kind).

    A request beyond the last answer, an answer the form refuses, a dict for a card that is not a form, or
    "accept" / a dict for a kind other than form and URL (a sign-in) makes the handler fail: that request is
    cancelled and the error is shown.
    """
    return _Scripted(answers)


POLICIES = {"decline": decline, "cancel": cancel, "accept_defaults": accept_defaults}
"""The handlers `MCP_WIDGETS_HANDLER` can name."""
