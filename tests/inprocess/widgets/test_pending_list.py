"""PendingList, `mw.pending()`'s widget: one model holding the list (title, one line per question, a
reference to each question's own card), refreshed in place; nothing typed in its state."""

from __future__ import annotations

import json

from mcp_widgets.widgets import ElicitationForm, PendingItem, PendingList

from .conftest import HOSTILE, own_models, page_edit, schema

CANARY = "canary-pending-71c2"


def item(ident: int, card: object = None, *, server: str = "shop", message: str = "Sign up?") -> PendingItem:
    return PendingItem(
        id=ident, server=server, message=message, kind="form", waited=42.0, left=None, card=card
    )


def test_the_list_is_one_model_of_lines_and_card_references(baseline: int) -> None:
    form = ElicitationForm("Which city?", schema({"city": {"type": "string"}}, ["city"]), server="shop")
    with_form = own_models()
    shown: list[PendingItem] = [item(1, form), item(2, server="bank", message="Not built yet")]
    listing = PendingList(lambda: list(shown))
    assert len(own_models()) - len(with_form) == 1  # the list is one model (its Layout is the shared one)
    assert listing.title == "2 open questions"
    assert listing.rows == [
        {"id": 1, "line": "shop · waited 42 s"},  # the card shows the message
        {"id": 2, "line": "bank · waited 42 s · Not built yet"},
    ]
    assert listing.cards == [form, None]
    state = listing.get_state()
    assert state["cards"] == [f"IPY_MODEL_{form.model_id}", None]  # a reference: the card is its own model
    page_edit(form, "city", CANARY)  # typed into the card, which the list shows again
    assert form.values()["city"] == CANARY
    listing.refresh()
    assert CANARY not in json.dumps(listing.get_state(), default=str) + repr(listing)
    shown.pop(0)  # answered: its row goes, the card lives on in its cell
    listing.refresh()
    assert [r["id"] for r in listing.rows] == [2] and listing.cards == [None]
    assert listing.title == "1 open question"
    shown.clear()
    listing.refresh()
    assert (listing.title, listing.rows, listing.cards) == ("No open questions", [], [])
    listing.close()
    assert listing.closed and form.comm is not None  # the card lives on
    listing.refresh()  # a closed list reads nothing again
    form.close()
    assert len(own_models()) == baseline


def test_one_server_and_hostile_text_as_text() -> None:
    listing = PendingList(lambda: [item(3, server=HOSTILE, message=HOSTILE)], server=HOSTILE)
    assert listing.title == f"1 open question from {HOSTILE}"
    assert listing.rows[0]["line"].startswith(HOSTILE)  # literal: the page sets it as textContent
    module = listing._esm[listing._esm.index("function renderPending") :]
    for markup in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert markup not in module
    assert "textContent" in module
    assert "open question from" in repr(listing)
    listing.close()
