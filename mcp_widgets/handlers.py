"""Ready-made handlers: answer a server's questions without a person (tests, demos, headless runs).

A handler is `async def handler(card) -> None`. It gets the form (or URL card) built for the request and acts
on it as a person would (`fill`, `accept`, `decline`, `cancel`); the answer is recorded as the handler's, by
name. Use one per server (`connect(..., handler=...)`) or for all (`set_default_handler`); headless runs can
pick `decline`, `cancel` or `accept_defaults` with the environment variable `MCP_WIDGETS_HANDLER`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["accept_defaults", "cancel", "decline", "scripted"]


def _is_form(card: Any) -> bool:
    return hasattr(card, "fill") and hasattr(card, "field_names")


async def decline(card: Any) -> None:
    """Decline every request."""
    card.decline()


async def cancel(card: Any) -> None:
    """Cancel every request (dismiss without answering)."""
    card.cancel()


async def accept_defaults(card: Any) -> None:
    """Accept a form as it comes (its defaults); decline URL cards and forms whose defaults are not enough."""
    # Clicks, not finish(): the answer is recorded as whoever runs this (a handler, or a headless policy).
    if _is_form(card) and card.accept():
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

    async def __call__(self, card: Any) -> None:
        if self._used >= len(self._answers):
            raise LookupError(f"scripted handler has no answer left ({len(self._answers)} given)")
        answer = self._answers[self._used]
        self._used += 1
        if isinstance(answer, str):
            verb = answer.lower()
            if verb not in ("accept", "decline", "cancel"):
                raise ValueError(f"scripted answer {verb!r} is not 'accept', 'decline', 'cancel' or a dict")
            if verb == "accept" and not card.accept():
                raise ValueError(f"scripted accept was refused: {_problems(card)}")
            if verb == "decline":
                card.decline()
            elif verb == "cancel":
                card.cancel()
            return
        if not _is_form(card):
            raise TypeError("scripted answer is a dict, but the request is not a form")
        card.fill(**dict(answer))
        if not card.accept():
            raise ValueError(f"scripted answer was refused: {_problems(card)}")

    def __repr__(self) -> str:
        return f"<scripted handler: {self._used} of {len(self._answers)} answers used>"


def _problems(card: Any) -> str:
    errors = getattr(card, "errors", {}) or {}
    # Field names and rule messages only: never the values.
    return "; ".join(f"{name}: {message}" for name, message in sorted(errors.items())) or "invalid"


def scripted(answers: Iterable[Mapping[str, Any] | str]) -> _Scripted:
    """A handler that answers requests in order.

    Args:
        answers: One entry per request: a dict of field values (filled in, then accepted), or "accept"
            (as it comes), "decline" or "cancel".

    A request beyond the last answer, or an answer the form refuses, makes the handler fail: that request is
    cancelled and the error is shown.
    """
    return _Scripted(answers)


POLICIES = {"decline": decline, "cancel": cancel, "accept_defaults": accept_defaults}
"""The handlers `MCP_WIDGETS_HANDLER` can name."""
