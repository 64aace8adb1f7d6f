"""UrlCard: the URL as text before consent, one safe link after, the rounds, and what it leaves behind."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types
import pytest

from mcp_widgets import handlers
from mcp_widgets.core.exceptions import FormStateError
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.core.urls import inspect_url
from mcp_widgets.widgets import FormState, UrlCard

from .conftest import HOSTILE, own_models

URL = "https://auth.example.com/connect?elicitationId=42&token=SECRET#frag"


def card(url: str = URL, **kw: Any) -> UrlCard:
    return UrlCard("Please sign in to continue.", url, server="shop", **kw)


def lines(c: UrlCard) -> list[str]:
    """The lines of text the card shows, in order (its closing line alone once it ended)."""
    if c.closing_line:
        return [c.closing_line]
    card = c.card
    if "header" not in card:
        return []
    shown = [card["header"], card["message"], card["host"], card["address"], *card["warnings"], c.status]
    return [text for text in shown if text]


labels = lines  # the composed card's word for them


def buttons(c: UrlCard) -> list[str]:
    return [b["label"] for b in c.buttons]


def the_anchor(c: UrlCard) -> dict[str, str]:
    """The card's one live link (its href and text), which the page draws as an anchor."""
    assert set(c.link) == {"href", "text"}, c.link
    return dict(c.link)


def no_live_link(c: UrlCard) -> None:
    """No link, and no markup anywhere in the card's state (its module and CSS aside: our code)."""
    assert c.link == {}
    state = {k: v for k, v in c.get_state().items() if k not in ("_esm", "_css")}
    text = json.dumps(state, default=str)
    assert "<a " not in text and "href" not in text


# -- what it shows before consent ----------------------------------------------------------------------------
def test_it_names_the_server_shows_the_message_the_host_and_the_full_url_as_text() -> None:
    c = card()
    assert labels(c) == [
        "Request from shop",
        "Please sign in to continue.",
        "Opens a page on: auth.example.com",
        f"Full address: {URL}",
    ]
    assert buttons(c) == ["Open page", "Decline", "Cancel"]
    assert c.url == URL
    assert c.check == inspect_url(URL)
    assert c.server == "shop" and c.message == "Please sign in to continue."
    assert c.state is FormState.PENDING and c.result is None and c.outcome is None
    assert c.round == 1 and not c.waiting and not c.completed
    assert c.view_count == 0
    no_live_link(c)


def test_a_server_calling_itself_something_else_is_shown_as_such() -> None:
    assert (
        labels(card(declared_name="Bank of Trust"))[0] == "Request from shop (calls itself “Bank of Trust”)"
    )
    assert labels(card(declared_name="shop"))[0] == "Request from shop"


def test_the_card_is_one_model_drawn_by_the_question_cards_renderer() -> None:
    c = card()
    assert c.card["kind"] == "url" and c.card["id"] == c.model_id
    assert "renderQuestion" in c._esm and "buildUrl" in c._esm and "mcp-widgets-host" in c._css
    assert c.buttons[0]["opens"] and c.buttons[0]["primary"] and not c.buttons[0]["disabled"]
    assert c.buttons[0]["tip"] == "Agree, and open this page on auth.example.com in a new tab"
    assert not any(b.get("opens") for b in c.buttons[1:])


def test_an_empty_message_gets_no_line() -> None:
    c = UrlCard("", URL, server="shop")
    assert labels(c) == ["Request from shop", "Opens a page on: auth.example.com", f"Full address: {URL}"]


def test_each_warning_is_a_line_of_text() -> None:
    url = "https://user:pw@xn--pypal-4ve.com:8443/\u202egpj.exe?x=1"
    c = card(url)
    lines = labels(c)
    assert lines[2] == "Opens a page on: xn--pypal-4ve.com  (reads as “pаypal.com”)"
    assert lines[3] == "Full address: https://user:pw@xn--pypal-4ve.com:8443/⟨U+202E⟩gpj.exe?x=1"
    warnings = lines[4:]
    assert warnings == [f"⚠ Warning: {text}" for text in c.check.warnings]
    assert len(warnings) == 5  # Punycode, mixed scripts, credentials, port, bidi
    no_live_link(c)


def test_a_unicode_host_shows_where_the_browser_goes() -> None:
    c = card("https://bücher.de/")
    assert labels(c)[2] == "Opens a page on: bücher.de  (the browser goes to “xn--bcher-kva.de”)"


def test_hostile_server_text_is_literal_and_never_html() -> None:
    url = 'https://example.com/"><img/src=x/onerror=alert(1)>?a=1&b=<script>alert(2)</script>'
    c = UrlCard(HOSTILE, url, server=HOSTILE, declared_name="x" + HOSTILE)
    assert c.check.allowed
    lines = labels(c)
    assert lines[0] == f"Request from {HOSTILE} (calls itself “x{HOSTILE}”)"
    assert lines[1] == HOSTILE
    assert lines[3] == f"Full address: {url}"
    no_live_link(c)
    assert c.accept()
    anchor = the_anchor(c)
    assert anchor["href"] == url  # escaped in the markup, so it parses back to exactly the URL
    assert HOSTILE not in anchor["text"] and "<img" not in anchor["text"]


# -- consent -------------------------------------------------------------------------------------------------
def test_consent_answers_accept_without_content_and_then_reveals_one_safe_link() -> None:
    c = card()
    seen: list[UrlCard] = []
    c.add_done_callback(seen.append)
    assert c.accept() is True
    assert seen == [c]
    assert c.state is FormState.ACCEPTED
    assert c.result == mcp_types.ElicitResult(action="accept")
    assert c.result.content is None
    assert c.result.model_dump(by_alias=True, exclude_none=True) == {"action": "accept"}
    assert c.outcome == Outcome(Action.ACCEPT, Reason.PERSON)
    assert c.waiting
    assert the_anchor(c) == {"href": URL, "text": "Open the page on auth.example.com in a new tab ↗"}
    assert "finish there: shop hears of it from the page" in labels(c)[-1]
    assert buttons(c) == ["Done"]
    assert c.accept() is False and c.decline() is False and c.cancel() is False  # answered once
    assert c.result.action == "accept"
    assert repr(c) == "<UrlCard server='shop' host='auth.example.com' accepted waiting>"


def test_the_link_is_given_only_after_consent() -> None:
    c = card()
    no_live_link(c)
    c.decline()
    no_live_link(c)
    c2 = card()
    no_live_link(c2)
    c2.accept()
    assert the_anchor(c2)["href"] == URL


def test_decline_and_cancel_leave_one_line_with_the_host_only() -> None:
    for press, action, verb in (("decline", "decline", "declined"), ("cancel", "cancel", "cancelled")):
        c = card()
        assert getattr(c, press)() is True
        assert c.result == mcp_types.ElicitResult(action=action)
        assert c.state is FormState(verb)
        assert not c.waiting
        assert labels(c) == [f"Request from shop to open a page on auth.example.com: {verb} by the person"]
        assert c.card == {"kind": "url"} and c.buttons == [] and c.status == ""
        no_live_link(c)
        state = json.dumps(c.get_state(), default=str)
        assert "SECRET" not in state and "auth.example.com/connect" not in state


def test_escape_cancels_a_pending_card() -> None:
    c = card()
    c2 = card()
    c._handle_custom_msg({"key": "Escape"}, [])  # the helper's view talks through the card's model
    assert c.result == mcp_types.ElicitResult(action="cancel")
    assert c2.state is FormState.PENDING
    c2.accept()
    c2._handle_custom_msg({"key": "Escape"}, [])  # after consent: nothing
    assert c2.waiting and c2.result.action == "accept"
    c2.ask_again()
    c2._handle_custom_msg({"key": "Escape"}, [])  # a new round: cancels
    assert c2.result == mcp_types.ElicitResult(action="cancel")


def test_a_handler_acting_for_the_person_is_recorded() -> None:
    c = card()
    with c.acting_as("handler", by="auto"):
        assert c.accept()
    assert c.outcome == Outcome(Action.ACCEPT, Reason.HANDLER, by="auto")


def test_ready_made_handlers_treat_it_as_a_url_card() -> None:
    c = card()
    # As the client runs a handler: its clicks are recorded as the handler's.
    with c.acting_as(Reason.HANDLER, by="accept_defaults"):
        asyncio.run(handlers.accept_defaults(c))
    assert c.result.action == "decline"
    assert c.outcome.reason == Reason.HANDLER
    assert c.outcome.by == "accept_defaults"
    c2 = card()
    asyncio.run(handlers.cancel(c2))
    assert c2.result.action == "cancel"


def test_finish_ends_a_pending_round_only() -> None:
    c = card()
    assert c.finish("cancel", reason="timeout", note="no answer within 5 s") is True
    assert c.outcome == Outcome(Action.CANCEL, Reason.TIMEOUT, note="no answer within 5 s")
    assert labels(c) == [
        "Request from shop to open a page on auth.example.com: cancelled: nobody answered in time "
        "(no answer within 5 s)"
    ]
    c2 = card()
    c2.accept()
    assert c2.finish("cancel", reason="withdrawn") is False  # already answered: waiting goes on
    assert c2.waiting and c2.result.action == "accept"


def test_the_first_answer_wins_even_for_a_stale_click() -> None:
    c = card()
    c._handle_custom_msg({"press": "cancel"}, [])  # the page's buttons are messages on the card's model
    c._handle_custom_msg({"press": "accept"}, [])
    assert c.result.action == "cancel"


# -- after consent: 2025-11-25 -------------------------------------------------------------------------------
def test_complete_ends_the_waiting_and_leaves_one_line() -> None:
    c = card(elicitation_id="550e8400")
    assert c.elicitation_id == "550e8400"
    assert c.complete() is False  # nothing to complete before consent
    c.accept()
    assert c.complete() is True
    assert c.completed and not c.waiting
    assert labels(c) == [
        "Request from shop to open a page on auth.example.com: accepted by the person; "
        "the server reported it finished"
    ]
    no_live_link(c)
    assert c.complete() is False  # a late or repeated notification changes nothing
    assert c.result == mcp_types.ElicitResult(action="accept")


def test_complete_with_another_note_when_the_call_ends() -> None:
    c = card()
    c.accept()
    assert c.complete(note="the call ended")
    assert labels(c)[0].endswith("accepted by the person; the call ended")


def test_done_only_hides_the_card() -> None:
    c = card()
    assert c.dismiss() is False  # nothing to hide while asking
    c.accept()
    result = c.result
    assert c.dismiss() is True
    assert c.result is result and c.outcomes == (Outcome(Action.ACCEPT, Reason.PERSON),)
    assert not c.waiting and not c.completed
    assert labels(c) == ["Request from shop to open a page on auth.example.com: accepted by the person"]
    no_live_link(c)
    assert c.complete() is False


def test_complete_on_a_declined_card_does_nothing() -> None:
    c = card()
    c.decline()
    assert c.complete() is False
    assert c.result.action == "decline"


# -- after consent: 2026-07-28 re-asks -----------------------------------------------------------------------
def test_ask_again_is_a_fresh_round_on_the_same_card() -> None:
    c = card()
    c.accept()
    first = c.result
    c.ask_again()
    assert c.round == 2
    assert c.state is FormState.PENDING and c.result is None and c.outcome is None
    assert not c.waiting
    assert buttons(c) == ["I've finished — try again", "Decline", "Cancel"]
    assert (
        labels(c)[-1] == "When you have finished on the page (link above), click “I've finished — try again”."
    )
    assert the_anchor(c)["href"] == URL  # consent was given for this URL: the link stays
    seen: list[mcp_types.ElicitResult | None] = []
    c.add_done_callback(lambda card: seen.append(card.result))

    async def round_two() -> mcp_types.ElicitResult:
        waiting = asyncio.ensure_future(c.wait())
        await asyncio.sleep(0)
        assert not waiting.done()
        assert c.accept()
        return await waiting

    assert asyncio.run(round_two()) == mcp_types.ElicitResult(action="accept")
    assert seen == [c.result]
    assert c.result is not first
    assert c.outcomes == (Outcome(Action.ACCEPT, Reason.PERSON), Outcome(Action.ACCEPT, Reason.PERSON))
    assert c.waiting and the_anchor(c)["href"] == URL


def test_a_completion_notification_answers_a_pending_retry_round() -> None:
    c = card(elicitation_id="e1")  # 2025-11-25, -32042: consent, then "I've finished — try again"
    c.accept()
    c.ask_again()
    seen: list[str] = []
    c.add_done_callback(lambda card: seen.append(card.result.action))
    assert c.complete() is True
    assert seen == ["accept"]
    assert c.outcome == Outcome(Action.ACCEPT, Reason.POLICY, by="elicitation/complete")
    assert c.completed and not c.waiting
    assert labels(c) == [
        "Request from shop to open a page on auth.example.com: accepted by policy 'elicitation/complete'; "
        "the server reported it finished"
    ]


def test_without_an_elicitation_id_complete_leaves_a_pending_round_to_the_person() -> None:
    c = card()  # 2026-07-28 cards have no id and get no completion notifications
    c.accept()
    c.ask_again()
    assert c.complete() is False
    assert c.state is FormState.PENDING
    first_round = card(elicitation_id="e2")
    assert first_round.complete() is False  # before consent nothing is answered for the person
    assert first_round.state is FormState.PENDING


def test_ask_again_can_end_with_cancel_and_takes_a_new_message() -> None:
    c = card()
    c.accept()
    c.ask_again("Still waiting for you to sign in.")
    assert c.message == "Still waiting for you to sign in."
    assert labels(c)[1] == "Still waiting for you to sign in."
    assert c.cancel()
    assert c.result.action == "cancel"
    assert labels(c) == ["Request from shop to open a page on auth.example.com: cancelled by the person"]
    assert [o.action for o in c.outcomes] == [Action.ACCEPT, Action.CANCEL]


def test_ask_again_adds_a_message_line_when_there_was_none() -> None:
    c = UrlCard("", URL, server="shop")
    c.accept()
    c.ask_again("Try again")
    assert labels(c)[:2] == ["Request from shop", "Try again"]


def test_ask_again_needs_a_card_waiting_after_consent() -> None:
    pending = card()
    with pytest.raises(FormStateError, match="pending"):
        pending.ask_again()
    declined = card()
    declined.decline()
    with pytest.raises(FormStateError, match="declined"):
        declined.ask_again()
    done = card()
    done.accept()
    done.complete()
    assert not done.can_ask_again
    with pytest.raises(FormStateError, match="no longer shown"):
        done.ask_again()
    waiting = card()
    waiting.accept()
    assert waiting.can_ask_again


# -- refused URLs --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "http://example.com/", "https://"],
)
def test_a_refused_url_is_declined_at_once_and_never_offered(url: str) -> None:
    c = card(url)
    assert c.state is FormState.DECLINED
    assert c.result == mcp_types.ElicitResult(action="decline")
    assert c.outcome.reason is Reason.REFUSED_URL
    assert c.outcome.note == c.check.refusal.rstrip(".")  # type: ignore[union-attr]
    assert c.card == {"kind": "url"} and c.buttons == []
    (line,) = labels(c)
    assert line.startswith("Request from shop to open a page")
    assert "declined: the URL is not safe to open" in line
    assert buttons(c) == []
    assert c.accept() is False and c.cancel() is False
    assert c.result.action == "decline"
    no_live_link(c)
    seen: list[UrlCard] = []
    c.add_done_callback(seen.append)
    assert seen == [c]
    assert asyncio.run(c.wait()) == mcp_types.ElicitResult(action="decline")
    assert "alert" not in line and "passwd" not in line


def test_a_refused_card_is_light(baseline: int) -> None:
    c = card("javascript:alert(1)")
    assert len(own_models()) - baseline == 1  # one model, its closing line its state (the Layout is shared)
    c.close()
    assert len(own_models()) == baseline


# -- waiting for the answer ----------------------------------------------------------------------------------
def test_a_failing_done_callback_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    c = card()

    def boom(_card: UrlCard) -> None:
        raise ValueError("boom")

    c.add_done_callback(boom)
    assert c.accept() is True
    assert "done callback of a URL card failed" in caplog.text


# -- models --------------------------------------------------------------------------------------------------
def test_a_card_is_light_and_leaves_only_its_line(baseline: int) -> None:
    c = card()
    created = len(own_models()) - baseline
    print(f"\nwidget models for a URL card: {created}")
    assert created == 1  # one anywidget (the composed card opened 9, then 13 after consent)
    c.accept()
    assert len(own_models()) - baseline == 1
    c.complete()
    assert len(own_models()) - baseline == 1  # down to its closing line, still the one model
    c.close()
    assert len(own_models()) == baseline


def test_closing_a_pending_or_waiting_card_closes_everything(baseline: int) -> None:
    c = card()
    c.close()
    assert c.result.action == "cancel" and c.outcome.note == "the card was closed"
    assert len(own_models()) == baseline
    c2 = card()
    c2.accept()
    c2.close()
    assert not c2.waiting and c2.complete() is False
    assert len(own_models()) == baseline


def test_a_thousand_cards_leave_no_model_behind(baseline: int) -> None:
    for i in range(1000):
        c = UrlCard(f"question {i}", f"https://example.com/{i}?t={i}", server="s", elicitation_id=str(i))
        kind = i % 7
        if kind == 0:
            c.accept()
            c.complete()
        elif kind == 1:
            c.decline()
        elif kind == 2:
            c.cancel()
        elif kind == 3:
            c.finish("cancel", reason="timeout")
        elif kind == 4:
            c.accept()
            c.ask_again()
            c.accept()
            c.dismiss()
        elif kind == 5:
            c.accept()  # closed while waiting
        # kind 6: closed while pending
        c.close()
    for url in ("javascript:x", "http://example.com"):
        UrlCard("refused", url, server="s").close()
    assert len(own_models()) == baseline


def test_the_repr_is_cheap_and_never_shows_the_path_or_query() -> None:
    c = card()
    assert repr(c) == "<UrlCard server='shop' host='auth.example.com' pending>"
    assert "SECRET" not in repr(c) and "connect" not in repr(c)
    c.decline()
    assert repr(c) == "<UrlCard server='shop' host='auth.example.com' declined>"


# -- one click opens the page (the helper's view in the browser) ---------------------------------------------
def sent_to_views(c: UrlCard) -> list[dict[str, Any]]:
    """What the card sends its views (custom messages, recorded in place of the comm)."""
    sent: list[dict[str, Any]] = []
    c.send = sent.append  # type: ignore[method-assign,assignment]
    return sent


def test_a_view_that_says_ready_gets_the_checked_url_and_its_open_consents_without_a_link() -> None:
    c = card()
    sent = sent_to_views(c)
    c._handle_custom_msg({"ready": True}, [])
    assert sent == [{"open_url": URL}]  # exactly the URL the kernel checked and shows
    c._handle_custom_msg({"opened": "https://elsewhere.example/"}, [])  # not what this card offers
    assert c.state is FormState.PENDING
    c._handle_custom_msg({"opened": URL}, [])
    assert c.outcome == Outcome(Action.ACCEPT, Reason.PERSON)
    assert sent[-1] == {"open_url": None}  # the round ended: the views open nothing any more
    assert not c._open_enabled()
    no_live_link(c)  # the page is open already: no link
    assert labels(c)[-1].startswith("The page on auth.example.com opened in a new tab. Waiting for you")
    assert buttons(c) == ["Done"]


def test_an_open_after_the_round_ended_is_ignored_and_a_retry_round_opens_nothing() -> None:
    c = card(elicitation_id="e1")
    sent = sent_to_views(c)
    c._handle_custom_msg({"opened": URL}, [])
    c.ask_again()
    assert c.buttons[0]["label"] == "I've finished — try again"
    assert not c.buttons[0]["opens"] and not c.buttons[0]["disabled"]
    assert "it opened in a new tab" in labels(c)[-1]
    c._handle_custom_msg({"ready": True}, [])  # a new view: not told any URL in a retry round
    c._handle_custom_msg({"opened": URL}, [])
    assert c.state is FormState.PENDING and c.round == 2
    assert {"open_url": URL} not in sent
    declined = card()
    sent = sent_to_views(declined)
    assert declined.decline() and sent == [{"open_url": None}]


# -- marimo: drawn inside its call's line --------------------------------------------------------
def test_a_line_drawn_url_card_ships_no_module_and_the_calls_line_draws_it() -> None:
    from mcp_widgets.widgets import CallLine, LineDrawnUrlCard
    from mcp_widgets.widgets._call_line import MARIMO_LINE_ESM

    c = LineDrawnUrlCard("Please sign in.", URL, server="shop")
    assert c._esm == ""  # marimo mints a module only while a cell runs: the line carries the renderer
    assert CallLine.shows(c) and CallLine.shows(card())
    line_module = CallLine(_esm=MARIMO_LINE_ESM)._esm  # what a line made in marimo ships
    assert "buildUrl" in line_module and "mcp-widgets-open" in line_module  # its URL block, and opening
    assert c.accept() and c.waiting and the_anchor(c)["href"] == URL
