"""One history record per elicitation, and the clipping that keeps server text bounded (pure)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from .outcome import Action, Outcome, Reason
from .text import clip

MAX_RECORDS = 10_000
"""How many records a store keeps by default (the newest)."""
MAX_TEXT = 4_000
"""Server-sent text (messages, titles, notes) is clipped to this length: no server can fill memory."""
MAX_NAME = 200
"""Names (servers, sources, fields, handlers) are clipped to this many characters."""

Mode = Literal["form", "url", "signin"]
Change = Literal["added", "updated", "cleared"]
Listener = Callable[[Change, "HistoryRecord | None"], object]
"""`fn(change, record)`: "added" or "updated" with the record as it is now, or "cleared" with None."""

PENDING = "pending"
"""The outcome filter for records still waiting for an answer."""

RECORD_KEYS = (
    "id",
    "asked_at",
    "server",
    "declared_name",
    "source",
    "mode",
    "url_host",
    "message",
    "fields",
    "scopes",
    "outcome",
    "answered_by",
    "duration",
)
"""The keys of every plain record, in order."""


class Source(NamedTuple):
    """The call an elicitation came from: kind ("tool", "prompt", "resource"; "app" for a link an app asked
    to open, named by its tool) and name; never arguments."""

    kind: str
    name: str


class AskedField(NamedTuple):
    """A field that was asked: its name, its title and whether it was required. Never its value."""

    name: str
    title: str
    required: bool


@dataclass(frozen=True)
class HistoryRecord:
    """One elicitation as the history keeps it. Holds nothing a person typed."""

    id: int
    """Unique in its store, increasing: newer records have larger ids."""
    asked_at: dt.datetime
    """When the server asked (aware, UTC)."""
    server: str
    """The name we know the server by, as on the form."""
    mode: Mode
    """"form", "url" or "signin"."""
    message: str
    """The server's message (clipped to MAX_TEXT characters)."""
    declared_name: str | None = None
    """The name the server gives itself, when it gave one."""
    source: Source | None = None
    """The tool, prompt or resource call the request came from, when known."""
    url_host: str | None = None
    """URL mode: the host only (no scheme, credentials, port, path, query or fragment)."""
    fields: tuple[AskedField, ...] = ()
    """Form mode: the fields asked, in the schema's order."""
    scopes: tuple[str, ...] = ()
    """A sign-in: the scopes asked for (`url_host` is then the authorization server's host)."""
    outcome: Outcome | None = None
    """How it ended, or None while pending."""
    duration: float | None = None
    """Seconds from asking to the outcome, or None while pending."""
    started: float = field(default=0.0, repr=False, compare=False)
    """`time.monotonic()` when asked (for `duration`); not exported."""

    @property
    def pending(self) -> bool:
        """True until the request has an outcome."""
        return self.outcome is None

    @property
    def answered_by(self) -> str | None:
        """ "person", a handler's or policy's name, or None when nobody answered (timeout, withdrawn, ...)."""
        return answered_by(self.outcome)

    def describe(self) -> str:
        """How it ended in one line, or "pending"."""
        return self.outcome.describe() if self.outcome is not None else PENDING

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict with exactly the keys in RECORD_KEYS."""
        outcome = self.outcome
        return {
            "id": self.id,
            "asked_at": self.asked_at.isoformat(),
            "server": self.server,
            "declared_name": self.declared_name,
            "source": None if self.source is None else {"kind": self.source.kind, "name": self.source.name},
            "mode": self.mode,
            "url_host": self.url_host,
            "message": self.message,
            "fields": [{"name": f.name, "title": f.title, "required": f.required} for f in self.fields],
            "scopes": list(self.scopes),
            "outcome": None
            if outcome is None
            else {
                "action": Action(outcome.action).value,
                "reason": Reason(outcome.reason).value,
                "by": outcome.by,
                "note": outcome.note,
            },
            "answered_by": self.answered_by,
            "duration": self.duration,
        }


def answered_by(outcome: Outcome | None) -> str | None:
    """Who answered: "person", the handler's or policy's name, or None when nobody did."""
    if outcome is None:
        return None
    reason = Reason(outcome.reason)
    if reason is Reason.PERSON:
        return "person"
    if outcome.by:
        return outcome.by
    if reason in (Reason.HANDLER, Reason.POLICY):
        return str(reason.value)  # mypy types a narrowed member's value as Any
    return None


def _source_name(kind: str, name: str) -> str:
    """A resource URI without credentials, query or fragment (they may carry arguments or tokens)."""
    if kind == "resource":
        name = name.split("#", 1)[0].split("?", 1)[0]
        scheme, sep, rest = name.partition("://")
        if sep:
            authority, slash, path = rest.partition("/")
            name = f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"
    return clip(name, MAX_NAME)


def as_source(source: Source | tuple[str, str] | None) -> Source | None:
    if source is None:
        return None
    kind, name = source
    return Source(clip(kind, MAX_NAME), _source_name(str(kind), str(name)))


def as_fields(fields: Iterable[Any]) -> tuple[AskedField, ...]:
    """Name, title and required of FieldSpec-like objects or (name, title, required) tuples; nothing else."""
    out = []
    for f in fields:
        if isinstance(f, tuple):
            name, title, required = f
        else:
            name, title, required = f.name, getattr(f, "title", "") or f.name, getattr(f, "required", False)
        out.append(AskedField(clip(name, MAX_NAME), clip(title, MAX_TEXT), bool(required)))
    return tuple(out)


def schema_fields(schema: object) -> list[tuple[str, str, bool]]:
    """(name, title, required) of each property of a raw requestedSchema; nothing else (never defaults)."""
    if not isinstance(schema, Mapping):
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    listed = schema.get("required")
    required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
    out = []
    for name, prop in properties.items():
        title = prop.get("title") if isinstance(prop, Mapping) else None
        out.append((str(name), title if isinstance(title, str) and title else str(name), name in required))
    return out


def clean_outcome(outcome: Outcome) -> Outcome:
    """The same outcome with its server- or handler-written strings bounded."""
    by = None if outcome.by is None else clip(outcome.by, MAX_NAME)
    return Outcome(Action(outcome.action), Reason(outcome.reason), by, clip(outcome.note, MAX_TEXT))


def status_of(outcome: Outcome | None) -> tuple[str, str | None]:
    """(pending or the action, the reason or None): the keys of the filter counters."""
    if outcome is None:
        return PENDING, None
    return Action(outcome.action).value, Reason(outcome.reason).value


def parse_outcome_filter(outcome: object) -> tuple[str, str] | None:
    """None, ("status", "pending"|action) or ("reason", reason)."""
    if outcome is None:
        return None
    value = outcome.value if isinstance(outcome, (Action, Reason)) else str(outcome)
    if value == PENDING or value in {a.value for a in Action}:
        return "status", value
    if value in {r.value for r in Reason}:
        return "reason", value
    choices = [PENDING, *(a.value for a in Action), *(r.value for r in Reason)]
    raise ValueError(f"unknown outcome filter; use one of {', '.join(choices)}")
