"""InputsCard as one model: a config's `${input:id}` values asked in fields whose typing is never state."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_widgets.core.mcp_config import ConfigInput
from mcp_widgets.widgets import InputsCard

from .conftest import HOSTILE, own_models

SECRET = "tok-never-kept-4711"
INPUTS = (
    ConfigInput("tok", description="Demo token", password=True),
    ConfigInput("region", options=("eu", "us"), default="us"),
    ConfigInput("user", default="ada"),
)


def card(inputs: tuple[ConfigInput, ...] = INPUTS) -> InputsCard:
    return InputsCard("vault", inputs, "~/.vscode/mcp.json")


def page_says(c: InputsCard, content: Any) -> None:
    """A message from the card's page, as the widget front end delivers it."""
    c._handle_custom_msg(content, [])


def state_text(c: InputsCard) -> str:
    """The card's synced state (what a saved notebook keeps), its module and CSS aside."""
    return json.dumps({k: v for k, v in c.get_state().items() if k not in ("_esm", "_css")}, default=str)


class Sent:
    """The custom messages the kernel sends to the card's views."""

    def __init__(self, c: InputsCard) -> None:
        self.messages: list[Any] = []
        c.send = self.messages.append  # type: ignore[method-assign]


def test_the_card_is_one_model_drawn_by_the_question_cards_fields(baseline: int) -> None:
    c = card()
    assert len(own_models()) - baseline == 1  # the composed card opened a box, a field each, two buttons
    assert c.card["kind"] == "inputs" and "renderFields" in c._esm and 'spec.widget === "password"' in c._esm
    assert (
        c.card["header"]
        == "vault needs 3 values (from ~/.vscode/mcp.json); kept in this kernel's memory only"
    )
    rows = {row["name"]: row for row in c.card["rows"]}
    assert (
        rows["tok"]["widget"] == "password"
        and rows["tok"]["title"] == "Demo token"
        and rows["tok"]["value"] == ""
    )
    assert rows["region"]["widget"] == "select" and rows["region"]["options"] == ["eu", "us"]
    assert rows["region"]["value"] == 1  # its default, as the option's index
    assert rows["user"]["widget"] == "text" and rows["user"]["value"] == "ada"
    assert [b["label"] for b in c.card["buttons"]] == ["Connect", "Cancel"]
    c.close()
    assert len(own_models()) == baseline


def test_typed_values_are_messages_never_state() -> None:
    c = card()
    page_says(c, {"edit": "tok", "value": SECRET, "view": "v1"})
    page_says(c, {"edit": "region", "value": 0, "view": "v1"})
    assert SECRET not in state_text(c) and SECRET not in repr(c)
    page_says(c, {"press": "accept"})
    assert c.result.result() == {"tok": SECRET, "region": "eu", "user": "ada"}
    assert c.closing_line.endswith("kept in this kernel's memory only · 3 values given")
    assert c.card == {"kind": "inputs"}
    assert SECRET not in state_text(c)


def test_fill_tells_the_page_in_a_message_and_a_later_view_asks_again() -> None:
    c = card()
    sent = Sent(c)
    c.fill(tok=SECRET, region="eu")
    assert sent.messages == [{"values": {"tok": SECRET, "region": 0}}]
    assert SECRET not in state_text(c)
    page_says(c, {"ready": True})  # a view drawn later (a reload)
    assert sent.messages[-1] == {"values": {"tok": SECRET, "region": 0}}
    with pytest.raises(KeyError):
        c.fill(nope="x")
    c.submit()
    assert c.result.result() == {"tok": SECRET, "region": "eu", "user": "ada"}


@pytest.mark.parametrize(
    "content",
    [
        {"edit": "nope", "value": "x"},
        {"edit": "region", "value": 9},
        {"edit": "region", "value": "eu"},
        {"edit": "tok", "value": 7},
        {"press": "explode"},
        ["edit"],
    ],
)
def test_what_our_page_never_sends_is_ignored(content: Any) -> None:
    c = card()
    page_says(c, content)
    c.submit()
    assert c.result.result() == {"tok": "", "region": "us", "user": "ada"}


def test_enter_in_the_last_field_connects_and_escape_cancels() -> None:
    entered = card()
    page_says(entered, {"key": "Enter", "in_last_field": True})
    assert entered.result.result() is not None
    untouched = card()
    page_says(untouched, {"key": "Escape"})
    assert untouched.result.result() is None and untouched.closing_line.endswith("· cancelled")


def test_typed_input_wants_a_second_escape() -> None:
    c = card()
    page_says(c, {"edit": "tok", "value": "x"})
    page_says(c, {"key": "Escape", "typed": True, "edits": 1})
    assert not c.result.done() and c.hint_warn and "Escape again" in c.hint
    page_says(c, {"edit": "tok", "value": "xy"})  # typing on: the next Escape asks again
    assert c.hint == ""
    page_says(c, {"key": "Escape", "typed": True, "edits": 2})
    assert not c.result.done()
    page_says(c, {"key": "Escape", "typed": True, "edits": 2})
    assert c.result.result() is None


def test_config_text_is_literal() -> None:
    c = InputsCard(HOSTILE, (ConfigInput("k\x1b[2J", description=HOSTILE, options=(HOSTILE,)),), HOSTILE)
    assert c.card["header"].startswith(HOSTILE) and c.card["rows"][0]["title"] == HOSTILE
    assert c.card["rows"][0]["options"] == [HOSTILE]  # text for textContent, never markup
    assert "\x1b" not in state_text(c)
    c.submit()
    assert c.result.result() == {"k\x1b[2J": HOSTILE}


def test_closing_a_card_still_asking_cancels_it() -> None:
    c = card()
    c.close()
    assert c.result.result() is None
