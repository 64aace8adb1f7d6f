"""URL-mode elicitations through the client: URL cards, both protocol generations, -32042 and its retry.

No kernel here: handlers answer the cards, and the test plays the person's browser (it opens the demo's
sign-in page only after the card showed the link).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import ipywidgets as w
import mcp_types
import pytest
from ipywidgets.widgets.widget import _instances
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError

from mcp_widgets import kernel as _bridge
from mcp_widgets.client import ServerError, connect
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.demo import create_server
from mcp_widgets.widgets import UrlCard
from tests.servers import SERVERS

MODES = ["auto", "legacy"]
NOTES = {"notes": ["Buy oat milk", "The workshop is on Friday"]}


pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py


@pytest.fixture
def demo() -> Iterator[Any]:
    server = create_server(sign_in_port=0)
    yield server
    server.sign_in.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def press_sign_in(card: UrlCard) -> None:
    """The person's browser: open the page the card links to and press its button (a POST)."""
    assert card.waiting or card.round > 1, "the browser goes there only after consent"
    with urllib.request.urlopen(card.url, timeout=5) as page:
        assert b"<form" in page.read()
    request = urllib.request.Request(card.url + "/complete", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=5) as page:
        assert b"Signed in" in page.read()


def closing_line(card: UrlCard) -> str:
    assert card.closing_line and card.card == {"kind": "url"} and card.buttons == []
    return card.closing_line


async def drain() -> None:
    """Run the work posted to the main thread so far (no kernel: only a waiting call runs it)."""
    done: concurrent.futures.Future[None] = concurrent.futures.Future()
    _bridge.post(lambda: done.set_result(None))
    await _bridge.wait_async(done)


async def until(predicate: Callable[[], bool]) -> None:
    """Let posted work run until `predicate` holds (a bound on a hang, not on speed)."""
    for _ in range(500):
        await drain()
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


class Person:
    """A handler acting as the person, round by round: `script(card)` for each round it is asked."""

    __name__ = "person"

    def __init__(self, script: Callable[[UrlCard], Any]) -> None:
        self.script = script
        self.seen: list[tuple[UrlCard, int]] = []

    async def __call__(self, card: Any) -> None:
        assert isinstance(card, UrlCard)
        self.seen.append((card, card.round))
        answer = self.script(card)
        if asyncio.iscoroutine(answer):
            await answer

    @property
    def cards(self) -> list[UrlCard]:
        return list(dict.fromkeys(card for card, _round in self.seen))


def no_live_link(card: UrlCard) -> bool:
    return card.link == {}


# --------------------------------------------------------------------------- the demo's sign-in


def test_sign_in_legacy_completes_on_the_page_and_the_notification_ends_the_card(demo: Any) -> None:
    def consent_then_sign_in(card: UrlCard) -> None:
        assert no_live_link(card)  # nothing to click before consent
        assert card.accept()
        assert not no_live_link(card)
        press_sign_in(card)

    person = Person(consent_then_sign_in)

    async def scenario() -> None:
        async with connect(demo, handler=person, mode="legacy") as srv:
            result = await srv.call_tool("sign_in", {"timeout": 30})
            assert result.structured_content == {"done": True, "user": "demo-user"}
            (card,) = person.cards
            await until(lambda: not card.waiting)
            assert card.completed and card.elicitation_id
            assert closing_line(card).endswith("the server reported it finished")

    run(scenario())
    assert demo.signed_in
    assert [r for _c, r in person.seen] == [1]


def test_sign_in_2026_asks_again_on_the_same_card(demo: Any) -> None:
    def rounds(card: UrlCard) -> None:
        if card.round == 1:
            assert card.accept()  # consent only: the page is not done yet, so the server asks again
            return
        assert card.state.value == "pending" and card.can_ask_again is False
        press_sign_in(card)
        assert card.accept()  # "I've finished — try again"

    person = Person(rounds)

    async def scenario() -> None:
        async with connect(demo, handler=person, mode="auto") as srv:
            assert srv.protocol_version == "2026-07-28"
            result = await srv.call_tool("sign_in", {})
            assert result.structured_content == {"done": True, "user": "demo-user"}
            (card,) = person.cards  # one card, asked twice: no second card stacked up
            assert card.round == 2 and card.elicitation_id is None
            assert card.message == "Waiting for you to finish signing in on the demo's page."
            assert [o.action for o in card.outcomes] == [Action.ACCEPT, Action.ACCEPT]
            await until(lambda: not card.waiting)
            assert closing_line(card).endswith("the call ended")

    run(scenario())
    assert [r for _c, r in person.seen] == [1, 2]
    assert demo.signed_in


def test_private_notes_2026_completes_in_one_call_on_the_same_card(demo: Any) -> None:
    # "Open page" is consent: the next round comes back before the person signed in on the page. The card
    # asks again ("I've finished — try again") and the same call ends with the notes (it used to end at
    # once with "not signed in yet", and every new call asked again with a new page).
    def rounds(card: UrlCard) -> None:
        if card.round == 1:
            assert card.accept()
            return
        press_sign_in(card)
        assert card.accept()

    person = Person(rounds)

    async def scenario() -> None:
        async with connect(demo, handler=person, mode="auto") as srv:
            assert srv.protocol_version == "2026-07-28"
            result = await srv.call_tool("private_notes", {})
            assert result.structured_content == NOTES
            (card,) = person.cards
            assert card.round == 2
            assert [o.action for o in card.outcomes] == [Action.ACCEPT, Action.ACCEPT]

    run(scenario())
    assert demo.signed_in


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", ["decline", "cancel"])
def test_sign_in_declined_or_cancelled(demo: Any, mode: str, answer: str) -> None:
    person = Person(lambda card: getattr(card, answer)())

    async def scenario() -> None:
        async with connect(demo, handler=person, mode=mode) as srv:
            result = await srv.call_tool("sign_in", {})
            assert result.structured_content == {"done": False, "action": answer}

    run(scenario())
    ((card, _round),) = person.seen
    assert card.outcome == Outcome(Action(answer), Reason.HANDLER, "person")
    assert not card.waiting and not demo.signed_in


@pytest.mark.parametrize("mode", MODES)
def test_accept_defaults_declines_url_cards(demo: Any, mode: str) -> None:
    from mcp_widgets import handlers

    async def scenario() -> None:
        async with connect(demo, handler=handlers.accept_defaults, mode=mode) as srv:
            result = await srv.call_tool("sign_in", {})
            assert result.structured_content == {"done": False, "action": "decline"}

    run(scenario())


# --------------------------------------------------------------------------- refused URLs


def url_server() -> MCPServer:
    """A legacy server that asks to open whatever URL it is given, and announces completions on demand."""
    mcp = MCPServer("pages")

    @mcp.tool()
    async def open_url(ctx: Context[Any, Any], url: str, eid: str = "e1") -> str:
        answer = await ctx.elicit_url("Please open this page.", url, eid)
        return answer.action

    @mcp.tool()
    async def open_page(ctx: Context[Any, Any], eid: str, finish: bool) -> str:
        answer = await ctx.elicit_url("Please open this page.", "https://example.com/page?token=secret", eid)
        await ctx.session.send_elicit_complete("nobody-knows-this-id")
        if finish:
            await ctx.session.send_elicit_complete(eid)
        return answer.action

    @mcp.tool()
    async def announce(ctx: Context[Any, Any], eid: str) -> str:
        await ctx.session.send_elicit_complete(eid)
        return "sent"

    return mcp


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("javascript:alert(1)", "javascript: URLs run code"),
        ("http://example.com/", "Plain http:// is only offered"),
        ("data:text/html,<b>hi</b>", "data: URLs"),
        ("file:///etc/passwd", "file: URLs"),
    ],
)
def test_refused_urls_are_declined_without_asking(url: str, why: str) -> None:
    person = Person(lambda card: card.accept())
    out = w.Output()

    async def scenario() -> None:
        async with connect(url_server(), handler=person, mode="legacy", output=out) as srv:
            result = await srv.call_tool("open_url", {"url": url})
            assert result.content[0].text == "decline"

    run(scenario())
    assert person.seen == []  # the handler never saw it
    # The call's entry in the Output is plain text once the call ended: the card's closing line.
    (entry,) = out.outputs
    assert sorted(entry["data"]) == ["text/html", "text/plain"]
    line = entry["data"]["text/plain"]
    assert why in line and "alert" not in line
    # The HTML twin only wraps the same line; the refused address never appears as markup.
    assert "alert" not in entry["data"]["text/html"] and "<b>" not in entry["data"]["text/html"]


def test_an_allowed_url_reaches_the_handler() -> None:
    person = Person(lambda card: card.accept())

    async def scenario() -> None:
        async with connect(url_server(), handler=person, mode="legacy") as srv:
            result = await srv.call_tool("open_url", {"url": "http://127.0.0.1:9/x"})
            assert result.content[0].text == "accept"

    run(scenario())
    ((card, _round),) = person.seen
    assert card.check.allowed and card.outcome == Outcome(Action.ACCEPT, Reason.HANDLER, "person")


def _displayed(out: w.Output) -> list[Any]:
    """The widgets appended to an Output (by model id)."""
    ids = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] for o in out.outputs]
    return [_instances[i] for i in ids]


# --------------------------------------------------------------------------- completion notifications


def test_completion_notifications_match_by_id_and_unknown_or_late_ones_are_ignored() -> None:
    person = Person(lambda card: card.accept())

    async def scenario() -> None:
        async with connect(url_server(), handler=person, mode="legacy") as srv:
            # The server sends an unknown id, then this card's id: only the second ends it.
            assert (await srv.call_tool("open_page", {"eid": "e1", "finish": True})).content[
                0
            ].text == "accept"
            # Only the unknown id: the card waits until the call ends.
            assert (await srv.call_tool("open_page", {"eid": "e2", "finish": False})).content[
                0
            ].text == "accept"
            first, second = person.cards
            await until(lambda: not first.waiting and not second.waiting)
            assert closing_line(first).endswith("the server reported it finished")
            assert closing_line(second).endswith("the call ended")
            # Late: both cards are finished; these are ignored.
            before = (closing_line(first), closing_line(second))
            for eid in ("e1", "e2"):
                assert (await srv.call_tool("announce", {"eid": eid})).content[0].text == "sent"
            await drain()
            assert (closing_line(first), closing_line(second)) == before
            assert "secret" not in closing_line(first)

    run(scenario())


# --------------------------------------------------------------------------- -32042, then one retry


def needs_page_server(calls: list[str], signed_in: list[bool]) -> MCPServer:
    mcp = MCPServer("gate")

    @mcp.tool()
    async def needs_page() -> str:
        calls.append("needs_page")
        if not signed_in:
            url = mcp_types.ElicitRequestURLParams(
                message="Sign in first.", url="https://example.com/sign-in", elicitation_id="gate-1"
            )
            raise UrlElicitationRequiredError([url])
        return "welcome"

    return mcp


def test_url_required_then_finished_retries_once() -> None:
    calls: list[str] = []
    signed_in: list[bool] = []

    def rounds(card: UrlCard) -> None:
        if card.round == 1:
            assert card.accept()
            return
        signed_in.append(True)  # the person signs in on the page
        assert card.accept()  # "I've finished — try again"

    person = Person(rounds)

    async def scenario() -> None:
        async with connect(needs_page_server(calls, signed_in), handler=person, mode="legacy") as srv:
            result = await srv.call_tool("needs_page", {})
            assert result.content[0].text == "welcome"

    run(scenario())
    assert calls == ["needs_page", "needs_page"]
    assert [r for _c, r in person.seen] == [1, 2]


def test_url_required_retry_happens_once_even_if_it_fails_again() -> None:
    calls: list[str] = []
    person = Person(lambda card: card.accept())  # says finished without signing in

    async def scenario() -> None:
        async with connect(needs_page_server(calls, []), handler=person, mode="legacy") as srv:
            with pytest.raises(ServerError) as caught:
                await srv.call_tool("needs_page", {})
            assert caught.value.code == mcp_types.URL_ELICITATION_REQUIRED

    run(scenario())
    assert calls == ["needs_page", "needs_page"]  # one retry, no loop
    assert [r for _c, r in person.seen] == [1, 2]


@pytest.mark.parametrize("answer", ["decline", "cancel"])
def test_url_required_declined_is_not_retried(answer: str) -> None:
    calls: list[str] = []
    person = Person(lambda card: getattr(card, answer)())

    async def scenario() -> None:
        async with connect(needs_page_server(calls, []), handler=person, mode="legacy") as srv:
            with pytest.raises(ServerError) as caught:
                await srv.call_tool("needs_page", {})
            error = caught.value
            assert error.code == mcp_types.URL_ELICITATION_REQUIRED
            # The person's own choice: said in one line, with nothing of the client's internals chained.
            assert error.__cause__ is None and error.__context__ is None
            verb = {"decline": "declined", "cancel": "cancelled"}[answer]
            (line,) = error._render_traceback_()  # type: ignore[attr-defined]
            assert line == (
                "\x1b[31mServerError\x1b[0m: tool 'needs_page' on 'gate' was not run: it needs a page opened "
                f"first, and that was {verb} by handler 'person' (URL elicitation required, code -32042)"
            ), line

    run(scenario())
    assert calls == ["needs_page"]
    assert [r for _c, r in person.seen] == [1]


def test_private_notes_retried_after_the_completion_notification(demo: Any) -> None:
    async def rounds(card: UrlCard) -> None:
        if card.round == 1:
            assert card.accept()
            return
        press_sign_in(card)  # the server announces the completion, which answers this round
        await card.wait()

    person = Person(rounds)

    async def scenario() -> None:
        async with connect(demo, handler=person, mode="legacy") as srv:
            result = await srv.call_tool("private_notes", {})
            assert result.structured_content == NOTES
            (card,) = person.cards
            assert card.outcomes[-1] == Outcome(Action.ACCEPT, Reason.POLICY, "elicitation/complete")
            assert card.completed and not card.waiting

    run(scenario())
    assert demo.signed_in


def test_url_required_unanswered_round_times_out_without_retry() -> None:
    calls: list[str] = []

    async def rounds(card: UrlCard) -> None:
        if card.round == 1:
            assert card.accept()
            return
        await card.wait()  # never says finished; no completion notification comes

    person = Person(rounds)

    async def scenario() -> None:
        gate = needs_page_server(calls, [])
        async with connect(gate, handler=person, mode="legacy", answer_timeout=0.5) as srv:
            with pytest.raises(ServerError):
                await srv.call_tool("needs_page", {})

    run(scenario())
    assert calls == ["needs_page"]
    (card,) = person.cards
    assert card.outcomes[-1].reason is Reason.TIMEOUT and card.round == 2


def test_url_required_with_two_pages_one_declined_drops_the_other() -> None:
    calls: list[str] = []
    mcp = MCPServer("two-gates")

    @mcp.tool()
    async def needs_two() -> str:
        calls.append("needs_two")
        pages = [
            mcp_types.ElicitRequestURLParams(message="A", url="https://a.example.com/", elicitation_id="a"),
            mcp_types.ElicitRequestURLParams(message="B", url="https://b.example.com/", elicitation_id="b"),
        ]
        raise UrlElicitationRequiredError(pages)

    async def answer(card: UrlCard) -> None:
        if card.elicitation_id == "b":
            card.decline()
        elif card.round == 1:
            assert card.accept()
        else:
            await card.wait()

    person = Person(answer)

    async def scenario() -> None:
        async with connect(mcp, handler=person, mode="legacy") as srv:
            with pytest.raises(ServerError):
                await srv.call_tool("needs_two", {})

    run(scenario())
    assert calls == ["needs_two"]
    a, b = person.cards
    assert b.outcome is not None and b.outcome.action is Action.DECLINE
    assert a.outcomes[0].action is Action.ACCEPT and a.outcomes[-1].action is Action.CANCEL
    assert a.outcomes[-1].note == "another required page was not agreed to"


def test_url_requests_enter_the_history_with_the_host_only() -> None:
    from mcp_widgets.core.history import default_history

    person = Person(lambda card: card.accept())
    name = "history-url-server"

    async def scenario() -> None:
        async with connect(url_server(), name=name, handler=person, mode="legacy") as srv:
            await srv.call_tool(
                "open_url", {"url": "https://pages.example.com/p/secret-path?token=CANARY#frag"}
            )
            await srv.call_tool("open_url", {"url": "javascript:alert('CANARY')"})

    run(scenario())
    records = default_history().records(server=name)
    seen = {(r["mode"], r["url_host"] or "", r["outcome"]["action"]) for r in records}
    assert seen == {("url", "pages.example.com", "accept"), ("url", "", "decline")}
    assert "CANARY" not in repr(records) and "secret-path" not in repr(records)


def test_a_url_question_after_its_call_ended_ends_with_the_connection() -> None:
    """No call holds a question asked after the call's result (2025-11-25 cannot say whose it is): its
    card waits for the server's word, and the closed connection ends it and frees its widgets."""
    import sys

    raw = [sys.executable, str(SERVERS / "rawrpc.py")]
    person = Person(lambda card: card.accept())
    url = "https://example.com/x"
    ask = {"op": "elicit_url", "id": 7, "message": "After", "url": url, "elicitationId": "e7"}
    out = w.Output()

    async def scenario() -> UrlCard:
        async with connect(raw, name="raw", handler=person, mode="legacy", output=out) as srv:
            result = await srv.call_tool("play", {"ops": [{"op": "result", "text": "done"}, ask]})
            assert result.content[0].text == "done"
            await until(lambda: bool(person.cards) and person.cards[0].waiting)
            (card,) = person.cards
            return card

    card = run(scenario())
    assert not card.waiting and card.comm is None
    assert card.outcome == Outcome(Action.ACCEPT, Reason.HANDLER, "person")
    out.close()
