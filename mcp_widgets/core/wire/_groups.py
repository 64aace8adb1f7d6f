"""Grouping by call: the wire's messages as a person reads them, one group per call (its 2026-07-28 rounds
numbered, its task's polls folded into one row), then the connection's own traffic (handshake, listings,
subscriptions, other messages) apart.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..text import clip_line, plural
from ._message import WireMessage

__all__ = ["WireGroup", "WireRow", "grouped"]

_HANDSHAKE = ("initialize", "notifications/initialized", "server/discover", "ping", "logging/setLevel")
_SUBSCRIPTIONS = ("resources/subscribe", "resources/unsubscribe", "notifications/resources/updated")

_CHOSE = {"decline": "declined", "cancel": "cancelled"}
"""A call that ended well after its last question was declined or cancelled says so, not "ok"."""


@dataclass
class WireRow:
    """A row of a group: one message, or several folded into one (a task's polls)."""

    messages: list[WireMessage]
    text: str

    @property
    def at(self) -> float:
        return self.messages[0].at


@dataclass
class WireGroup:
    """The messages of one call (or of one kind of the connection's own traffic), in order."""

    key: str
    label: str
    kind: Literal["call", "connection", "listings", "subscriptions", "other"]
    messages: list[WireMessage] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.messages[0].at

    @property
    def took(self) -> float:
        return self.messages[-1].at - self.messages[0].at

    @property
    def size(self) -> int:
        return sum(m.size for m in self.messages)

    @property
    def outcome(self) -> str:
        """How the call ended, as far as the wire tells: its last answer's summary, else "open"."""
        if self.kind != "call":
            return ""
        # A 2026-07-28 task ends in a poll's answer (its outcome read "working" when it was done); a
        # 2025-11-25 task's own result (tasks/result) says how it ended, whatever poll came after it.
        ends = ["tools/call", "resources/read", "prompts/get", "tasks/result", "tasks/get"]
        ends.append("completion/complete")  # a completion's group of its own
        answers = [
            m
            for m in self.messages
            if m.direction == "in" and m.kind in ("result", "error") and m.method in ends
        ]
        if any(m.method == "tasks/result" for m in answers):
            answers = [m for m in answers if m.method != "tasks/get"]
        if not answers:
            sent = (m.method for m in self.messages if m.direction == "out")
            return "given up" if "notifications/cancelled" in sent else "open"
        message = answers[-1]
        if message.kind == "error":
            return message.error or "error"
        note = message.note.strip()
        if note.startswith("input required"):
            return "waiting for answers"
        return note or _CHOSE.get(self._last_choice() or "", "ok")

    def _last_choice(self) -> str | None:
        """The action of the last answer we gave the call's questions ("decline"), if it asked any: a
        2025-11-25 answer to `elicitation/create`, or a 2026-07-28 round's `inputResponses`."""
        for message in reversed(self.messages):
            if message.direction != "out":
                continue
            if message.kind == "result" and message.method == "elicitation/create":
                return message.note.strip() or None
            if _is_call(message) and '"inputResponses"' in message.text:
                responses = message.body.get("params", {}).get("inputResponses")
                actions = [a.get("action") for a in responses.values() if isinstance(a, Mapping)]
                if actions and isinstance(actions[-1], str):
                    return actions[-1]
        return None

    def rows(self) -> list[WireRow]:
        """The group's messages as rows: rounds numbered, a task's polls (`tasks/get` and their answers)
        folded into one row per run."""
        rows: list[WireRow] = []
        run: WireRow | None = None
        runs: dict[Any, WireRow] = {}  # a poll's id -> its run (its answer joins it, whatever came between)
        rounds = 0
        retried = sum(1 for m in self.messages if _is_call(m)) > 1
        for message in self.messages:
            if _is_poll(message):
                if run is None:
                    run = WireRow([], "")
                    rows.append(run)
                run.messages.append(message)
                runs[message.id] = run
                continue
            # A poll's answer, its HTTP exchange (over HTTP) and a task's status notification (a 2025-11-25
            # server may push one between two polls) join the run: they broke it, each starting a row of
            # its own ("tasks/get: polled 0 times"), so that polls over HTTP never folded.
            joined = (runs.get(message.id) if message.id is not None else None) or run
            if joined is not None and _polls_part(message):
                joined.messages.append(message)
                continue
            run = None
            text = message.summary
            if _is_call(message):
                rounds += 1
                if retried:
                    text = f"round {rounds}: {text}"
            rows.append(WireRow([message], text))
        for row in rows:
            if not row.text:
                row.text = _poll_text(row.messages)
        return rows


def _is_call(message: WireMessage) -> bool:
    """Our `tools/call` request: a 2026-07-28 call sends one per input-required round."""
    return message.direction == "out" and message.kind == "request" and message.method == "tools/call"


def _is_poll(message: WireMessage) -> bool:
    """A `tasks/get` request we sent: it starts a run of polls, or continues one."""
    return message.direction == "out" and message.kind == "request" and message.method == "tasks/get"


def _polls_part(message: WireMessage) -> bool:
    """What joins a run of polls without starting one: a poll's answer, its HTTP exchange, a task's status
    notification."""
    if message.kind == "http":
        return message.about == "tasks/get"
    return message.method in ("tasks/get", "notifications/tasks/status")


def _poll_text(run: Sequence[WireMessage]) -> str:
    asked = [m for m in run if m.direction == "out"]
    gaps = [b.at - a.at for a, b in itertools.pairwise(asked)]
    apart = f", {sum(gaps) / len(gaps):.1f} s apart" if gaps else ""
    status = _last_status(run)
    notices = sum(1 for m in run if m.method == "notifications/tasks/status")
    told = f", {plural(notices, 'status notification')}" if notices else ""
    return f"tasks/get: polled {plural(len(asked), 'time')}{apart}" + (f", {status}" if status else "") + told


def _last_status(messages: Sequence[WireMessage]) -> str:
    for message in reversed(messages):
        if message.state is not None:
            return f"last {clip_line(message.state, 40)}"
    return ""


def grouped(messages: Iterable[WireMessage], labels: Mapping[str, str]) -> list[WireGroup]:
    """`messages` as groups, in order of their first message: calls (named by `labels`, call key -> what
    the call is), and the connection's traffic."""
    groups: dict[str, WireGroup] = {}
    for message in messages:
        key, label, kind = _group_of(message, labels)
        group = groups.get(key)
        if group is None:
            group = groups[key] = WireGroup(key, label, kind)
        group.messages.append(message)
    return list(groups.values())


def _group_of(message: WireMessage, labels: Mapping[str, str]) -> tuple[str, str, Any]:
    if message.call is not None:
        return message.call, labels.get(message.call, "a call"), "call"
    method = (message.about or "") if message.kind == "http" else (message.method or "")
    if method in _HANDSHAKE or not method:
        return "~connection", "connection", "connection"
    if method.endswith("/list") or method.endswith("/list_changed"):
        return "~listings", "listings", "listings"
    if method in _SUBSCRIPTIONS or method.startswith("subscriptions/"):
        return "~subscriptions", "subscriptions", "subscriptions"
    return "~other", "other messages", "other"
