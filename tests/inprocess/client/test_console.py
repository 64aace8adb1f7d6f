"""Asking on a terminal: the real form, answered field by field from scripted console input."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_widgets.client import connect_sync
from mcp_widgets.client import console as _console
from mcp_widgets.core.outcome import Action, Reason
from mcp_widgets.widgets import ElicitationForm
from tests.servers.demo import PROFILE_SCHEMA, build_server, parse


class Terminal:
    """Scripted lines in, shown lines out."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.shown: list[str] = []

    def read(self, prompt: str) -> str:
        self.shown.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)

    def write(self, text: str) -> None:
        self.shown.append(text)


@pytest.fixture
def profile() -> Iterator[ElicitationForm]:
    form = ElicitationForm("Tell us about you", PROFILE_SCHEMA, server="demo", declared_name="Demo Inc")
    yield form
    form.close()


def ask(form: ElicitationForm, *lines: str) -> Terminal:
    term = Terminal(*lines)
    _console.ask(form, read=term.read, write=term.write)
    return term


def test_field_by_field_with_a_retry(profile: ElicitationForm) -> None:
    term = ask(profile, "", "Ada", "old", "40", "3", "y")
    assert profile.outcome is not None and profile.outcome.action is Action.ACCEPT
    assert profile.outcome.reason is Reason.PERSON
    assert profile.result is not None
    assert profile.result.content == {"name": "Ada", "age": 40, "color": "blue", "subscribe": True}
    shown = "\n".join(term.shown)
    assert "Request from demo (calls itself “Demo Inc”)" in shown
    assert "Tell us about you" in shown
    assert "age [30]: " in shown and "color [green]: " in shown and "(y/n) [n]" in shown
    assert "not a valid" in shown or "must be" in shown
    assert (
        "old" not in shown.replace("old", "", 0) or shown.count("old") == 0
    )  # what was typed is never echoed


def test_enter_keeps_defaults(profile: ElicitationForm) -> None:
    ask(profile, "", "Bo", "", "", "")
    assert profile.result is not None
    assert profile.result.content == {"name": "Bo", "age": 30, "color": "green", "subscribe": False}


@pytest.mark.parametrize(("first", "action"), [("n", Action.DECLINE), ("q", Action.CANCEL)])
def test_decline_and_cancel_up_front(profile: ElicitationForm, first: str, action: Action) -> None:
    ask(profile, first)
    assert profile.outcome is not None and profile.outcome.action is action


def test_required_left_empty_declines(profile: ElicitationForm) -> None:
    term = ask(profile, "", "")
    assert profile.outcome is not None and profile.outcome.action is Action.DECLINE
    assert "A required field was left empty; declined." in term.shown


def test_three_bad_values_cancel(profile: ElicitationForm) -> None:
    term = ask(profile, "", "Cy", "x", "-5", "999")
    assert profile.outcome is not None and profile.outcome.action is Action.CANCEL
    assert term.shown[-1] == "No valid answer for 'age'; cancelled."
    assert not any("999" in line for line in term.shown)


def test_end_of_input_cancels(profile: ElicitationForm) -> None:
    ask(profile, "", "Di")
    assert profile.outcome is not None and profile.outcome.action is Action.CANCEL


def test_choices_by_title_and_multi() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "size": {
                "type": "string",
                "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}],
            },
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
        },
    }
    form = ElicitationForm("Pick", schema, server="demo")
    try:
        ask(form, "", "Large", "1, c")
        assert form.result is not None
        assert form.result.content == {"size": "l", "tags": ["a", "c"]}
    finally:
        form.close()


def test_client_asks_on_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = iter(["", "Eve"])
    asked: list[bool] = []
    real_ask = _console.ask

    def ask(card: Any, **kw: Any) -> None:
        # A form that waits for a person has everything it shows (one model, its card made as it opened).
        asked.append(bool(card.card["rows"]))
        real_ask(card, **kw)

    monkeypatch.setattr(_console, "available", lambda: True)
    monkeypatch.setattr(_console, "ask", ask)
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(lines))
    monkeypatch.setattr(builtins, "print", lambda *a, **k: None)
    with connect_sync(build_server()) as srv:
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "accept", "content": {"name": "Eve"}}
    assert asked == [True]


def test_no_terminal_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_console, "available", lambda: False)
    with connect_sync(build_server()) as srv:
        assert parse(srv.call_tool_sync("ask_name")) == {"action": "decline"}


@pytest.mark.parametrize(
    ("typed", "action"), [("y", Action.ACCEPT), ("n", Action.DECLINE), ("q", Action.CANCEL)]
)
def test_a_url_card_on_the_terminal_shows_the_host_and_asks_for_consent(typed: str, action: Action) -> None:
    from mcp_widgets.widgets import UrlCard

    card = UrlCard("Sign in, please", "https://xn--80ak6aa92e.com/login?t=1", server="demo")
    try:
        term = ask(card, typed)  # type: ignore[arg-type]
        assert card.outcome is not None and card.outcome.action is action
        shown = "\n".join(term.shown)
        assert "It asks you to open a page on: аррӏе.com" in shown  # the decoded host, next to the raw one
        assert "Full address: https://xn--80ak6aa92e.com/login?t=1" in shown
        assert "Punycode" in shown or "internationalised" in shown.lower()
        # The address to open is only given after consent.
        assert ("Open this address" in shown) is (action is Action.ACCEPT)
    finally:
        card.close()


# A server's text on a terminal: clear the screen, home the cursor, a fake header in red, the window title
# (OSC), hidden text, a carriage return over the line, a bidi override.
ESCAPES = "\x1b[2J\x1b[H\x1b[31mRequest from trusted-bank\x1b[0m\x1b]0;pwned\x07\x1b[8mhidden\rover\u202e"
ESCAPES_SHOWN = (
    "\\x1b[2J\\x1b[H\\x1b[31mRequest from trusted-bank\\x1b[0m\\x1b]0;pwned\\x07\\x1b[8mhidden\\x0doverU+202E"
)


def test_server_text_reaches_the_terminal_as_visible_escapes() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pick": {
                "type": "string",
                "title": "Pick " + ESCAPES,
                "description": "About " + ESCAPES,
                "oneOf": [{"const": "a", "title": "One " + ESCAPES}, {"const": "b", "title": "Two"}],
                "default": "a",
            },
        },
        "required": ["pick"],
    }
    form = ElicitationForm("Message " + ESCAPES, schema, server="srv" + ESCAPES, declared_name="me" + ESCAPES)
    try:
        term = ask(form, "", "")
        assert form.outcome is not None and form.outcome.action is Action.ACCEPT
        shown = "\n".join(term.shown)
        for part in ("srv", "me", "Message ", "About ", "1) One ", "Pick ", "[One "):
            assert part + ESCAPES_SHOWN in shown
        assert not any(ch in shown for ch in "\x1b\x07\r\u202e")
    finally:
        form.close()


def test_a_url_card_message_on_the_terminal_is_escaped() -> None:
    from mcp_widgets.widgets import UrlCard

    card = UrlCard("Sign in " + ESCAPES, "https://example.com/login", server="demo" + ESCAPES)
    try:
        term = ask(card, "n")  # type: ignore[arg-type]
        shown = "\n".join(term.shown)
        assert "Sign in " + ESCAPES_SHOWN in shown and "demo" + ESCAPES_SHOWN in shown
        assert not any(ch in shown for ch in "\x1b\x07\r\u202e")
    finally:
        card.close()
