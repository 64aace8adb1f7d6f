"""How an elicitation ended: one type for the form, the history and the tests (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["Action", "Outcome", "Reason", "to_wire"]


class Action(str, Enum):
    """What the server receives."""

    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


class Reason(str, Enum):
    """Why the request ended that way."""

    PERSON = "person"
    """The person clicked (or pressed a key)."""
    HANDLER = "handler"
    """A handler acting for the person; `Outcome.by` names it."""
    POLICY = "policy"
    """A headless policy (nobody looking, MCP_WIDGETS_HANDLER); `Outcome.by` names it."""
    WITHDRAWN = "withdrawn"
    """The server withdrew its request or went away."""
    TIMEOUT = "timeout"
    """Nobody answered in time."""
    INVALID_SCHEMA = "invalid-schema"
    """The requested schema broke a rule; refused with -32602."""
    REFUSED_URL = "refused-url"
    """A URL-mode request whose URL is not safe to offer."""
    INTERRUPT = "interrupt"
    """The kernel was interrupted while waiting."""
    ERROR = "error"
    """A handler or the client itself failed."""
    EXPIRED = "expired"
    """Answered, but the server no longer kept the question (2026-07-28): the answer was not used."""


_VERB = {Action.ACCEPT: "accepted", Action.DECLINE: "declined", Action.CANCEL: "cancelled"}
_WHY = {
    Reason.WITHDRAWN: "the server withdrew the request",
    Reason.TIMEOUT: "nobody answered in time",
    Reason.INVALID_SCHEMA: "the requested schema is invalid",
    Reason.REFUSED_URL: "the URL is not safe to open",
    Reason.INTERRUPT: "the kernel was interrupted",
    Reason.ERROR: "an error occurred",
}


@dataclass(frozen=True)
class Outcome:
    """The end of one elicitation. Never holds what was typed."""

    action: Action
    reason: Reason = Reason.PERSON
    by: str | None = None
    """Name of the handler or policy that answered, when not the person."""
    note: str = ""
    """A short explanation for people (no values)."""

    def describe(self) -> str:
        """One line, e.g. "accepted by the person" or "cancelled: the kernel was interrupted"."""
        verb = _VERB[Action(self.action)]
        reason = Reason(self.reason)
        if reason is Reason.EXPIRED:  # not "accepted": the server refused the answer as too late
            text = "expired"
        elif reason is Reason.PERSON:
            text = f"{verb} by the person"
        elif reason in (Reason.HANDLER, Reason.POLICY):
            kind = "handler" if reason is Reason.HANDLER else "policy"
            text = f"{verb} by {kind} {self.by!r}" if self.by else f"{verb} by a {kind}"
        elif reason is Reason.WITHDRAWN and self.note:
            return f"{verb}: {self.note}"  # who withdrew it (the server, or our side closing): said once
        else:
            text = f"{verb}: {_WHY[reason]}"
        return f"{text} ({self.note})" if self.note and self.note != _WHY.get(reason) else text


def to_wire(action: Action | str, content: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ElicitResult as JSON: content only with accept, and only when there is some schema."""
    act = Action(action)
    if act is Action.ACCEPT and content is not None:
        return {"action": act.value, "content": content}
    return {"action": act.value}
