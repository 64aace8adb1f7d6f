"""SignInCard as one model: its text literal, its buttons as presses, the pasted address a message only."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest

from mcp_widgets.core.outcome import Action, Reason
from mcp_widgets.widgets import SignInCard

from .conftest import HOSTILE, own_models

REDIRECT = "http://127.0.0.1:5555/callback"
SECRET = "CODE-never-kept-4711"


def address(host: str = "auth.example.com", **extra: str) -> str:
    query = {
        "response_type": "code",
        "client_id": "abc",
        "redirect_uri": REDIRECT,
        "state": "the-state",
        "code_challenge": "x",
        "code_challenge_method": "S256",
        "scope": "read write",
        **extra,
    }
    return f"https://{host}/authorize?{urlencode(query)}"


def card(**kw: Any) -> SignInCard:
    return SignInCard(address(), server="lab", **kw)


def page_says(c: SignInCard, content: dict[str, Any]) -> None:
    """A message from the card's page, as the widget front end delivers it."""
    c._handle_custom_msg(content, [])


def state_text(c: SignInCard) -> str:
    """The card's synced state (what a saved notebook keeps), its module and CSS aside (our code)."""
    state = {k: v for k, v in c.get_state().items() if k not in ("_esm", "_css")}
    return json.dumps(state, default=str)


def test_the_card_is_one_model_drawn_by_the_question_cards_renderer(baseline: int) -> None:
    c = card()
    assert len(own_models()) - baseline == 1  # the composed card opened a box, labels, buttons, a helper
    assert c.card["kind"] == "signin" and c.card["id"] == c.model_id
    assert "renderQuestion" in c._esm and "showPaste" in c._esm and "mcp-widgets-paste" in c._css
    assert c.card["host"] == "You sign in on: auth.example.com"
    assert c.card["detail"] == "Only that site sees what you type there; it gives lab access to: read, write"
    assert c.card["address"] == f"Full address: {address()}"
    assert [b["label"] for b in c.buttons] == ["Sign in", "Cancel"]
    assert c.buttons[0]["opens"] and c.buttons[0]["primary"] and not c.buttons[0]["disabled"]
    assert c.link == {} and c.paste_offer == {}  # nothing to open, nothing to paste, before consent
    page_says(c, {"press": "accept"})
    assert c.waiting and len(own_models()) - baseline == 1
    assert c.link["href"] == address() and c.paste_offer["submit"] == "Submit address"
    assert [b["label"] for b in c.buttons] == ["Cancel"]
    c.signed_in()
    assert len(own_models()) - baseline == 1  # down to its closing line, still the one model
    assert c.closing_line == "Sign-in on auth.example.com for lab: accepted by the person (signed in)"
    assert c.card == {"kind": "signin"} and c.buttons == [] and c.link == {} and c.paste_offer == {}
    c.close()
    assert len(own_models()) == baseline


def test_hostile_server_text_is_literal_and_never_html() -> None:
    c = SignInCard(address(), server=HOSTILE, declared_name="x\x1b[31m" + HOSTILE, message=HOSTILE)
    assert c.card["header"] == f"Sign-in requested by {HOSTILE} (calls itself “x\\x1b[31m{HOSTILE}”)"
    assert c.card["message"] == HOSTILE  # text for textContent, never markup
    assert "\x1b" not in state_text(c)
    c.accept()
    assert HOSTILE not in c.link["text"] and "<" not in c.link["text"]
    assert "<a " not in state_text(c)


def test_a_pasted_address_is_a_message_never_state() -> None:
    c = card()
    taken: list[Any] = []
    c.on_redirect = taken.append
    page_says(c, {"press": "accept"})
    wrong = f"{REDIRECT}?code={SECRET}&state=not-the-state"
    page_says(c, {"paste": wrong})
    assert "refused" in c.note and c.waiting and taken == []
    assert c.paste_offer  # the field stays for another try
    page_says(c, {"paste": f"{REDIRECT}?code={SECRET}&state=the-state"})
    assert len(taken) == 1 and c.paste_offer == {} and "Address received" in c.note
    assert SECRET not in state_text(c) and SECRET not in repr(c)
    c.signed_in()
    assert SECRET not in state_text(c)


@pytest.mark.parametrize("content", [{"paste": 7}, {"paste": ""}, {"paste": None}, ["paste"]])
def test_a_malformed_paste_message_is_ignored(content: Any) -> None:
    c = card()
    c.accept()
    page_says(c, content)
    assert c.waiting and c.note == ""


def test_cancel_and_escape_before_consent_and_while_waiting() -> None:
    before = card()
    page_says(before, {"key": "Escape"})
    assert before.signin_state == "cancelled" and before.outcome.action is Action.CANCEL
    assert before.closing_line.startswith("Sign-in on auth.example.com for lab: cancelled")
    waiting = card()
    stopped: list[bool] = []
    waiting.on_cancel = lambda: stopped.append(True)
    waiting.accept()
    page_says(waiting, {"press": "cancel"})
    assert waiting.signin_state == "cancelled" and stopped == [True]
    assert "cancelled while waiting for the browser" in waiting.closing_line


def test_a_stale_sign_in_press_after_cancel_is_refused() -> None:
    c = card()
    assert c.cancel()
    page_says(c, {"press": "accept"})
    assert c.signin_state == "cancelled" and c.outcome.action is Action.CANCEL


def test_the_page_opening_the_address_consents_once() -> None:
    c = card()
    page_says(c, {"ready": True})
    page_says(c, {"opened": "https://elsewhere.example/"})  # not the address it offers
    assert not c.waiting
    page_says(c, {"opened": address()})
    assert c.waiting and c.link == {}  # it opened in the click: no link needed
    assert "in the new tab" in c.status


def test_a_refused_address_leaves_no_server_text() -> None:
    c = SignInCard("javascript:alert(1)", server="lab")
    assert c.outcome.reason is Reason.REFUSED_URL and c.signin_state == "cancelled"
    assert c.card == {"kind": "signin"} and c.buttons == [] and c.closing_line == ""
    assert c.accept() is False
