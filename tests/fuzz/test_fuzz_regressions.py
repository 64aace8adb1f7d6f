"""Defects the fuzzer found, each as its smallest reproduction (named after what must hold)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mcp_widgets import ServerError, connect_sync, handlers
from tests.inprocess.client.test_secrets import everything_in, leaks
from tests.servers.hostile import build_server

pytestmark = pytest.mark.usefixtures("clean_client")

OK = {"end": {"kind": "return", "text": "still here"}}
CANARY = "Cnry-long-71c2"


@contextlib.contextmanager
def after_the_call(
    name: str, ops: list[dict[str, Any]], out: Any, *, until: Callable[[], bool], what: str
) -> Iterator[Any]:
    """The raw stdio server called with `ops` (its result first, then what it asks after the call ended), its
    questions shown in `out`; waits (as a call's wait does, so the client can show them) until `until()`;
    closed after the block."""
    from mcp_widgets import kernel

    from .checks import Later
    from .test_fuzz_events import RAW

    srv = connect_sync(RAW, name=name, handler=handlers.accept_defaults, mode="legacy", output=out)
    try:
        assert srv.call_tool_sync("play", {"ops": ops}).content[0].text == "done"
        deadline = time.monotonic() + 30
        while not until():
            assert time.monotonic() < deadline, what
            kernel.wait_sync(Later(0.05).future)
        yield srv
    finally:
        srv.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_servers_own_error_with_code_32000_leaves_the_connection_usable(mode: str) -> None:
    """-32000 opens JSON-RPC's server-error range; only the SDK's own "Connection closed" means gone.

    Found by test_fuzz_inproc: `{"end": {"kind": "error", "code": -32000}}` made the client report "the
    server disconnected" and refuse every later call, with the server alive.
    """
    with connect_sync(build_server(), name=f"e32000-{mode}", mode=mode) as srv:
        with pytest.raises(ServerError) as info:
            srv.call_tool_sync("play", {"script": {"end": {"kind": "error", "code": -32000, "text": "busy"}}})
        assert "busy (code -32000)" in str(info.value)
        assert srv.connected
        assert srv.call_tool_sync("play", {"script": OK}).content[0].text == "still here"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_answer_quoted_past_the_shortened_error_message_is_not_chained(mode: str) -> None:
    """The error we raise shows a server's message cut at 2000 characters; an answer quoted after the cut
    was not redacted (nothing to redact in what we show) and the server's own error, quoting it, was chained.

    Found by test_fuzz_inproc: `"<script>…" * 2000` followed by the typed name.
    """
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    end = {"kind": "error", "text": "x" * 3000, "echo": "plain"}
    script = {"asks": [{"message": "Name?", "schema": schema}], "end": end}
    answers = handlers.scripted([{"a": CANARY}])
    srv = connect_sync(build_server(), name=f"long-{mode}", handler=answers, mode=mode)
    with srv, pytest.raises(ServerError) as info:
        srv.call_tool_sync("play", {"script": script})
    assert "xxxx" in str(info.value)  # the server's message, shortened
    assert leaks(everything_in(info.value), [CANARY]) == []


@pytest.mark.parametrize("gap", [0.0, 0.02])
def test_a_question_withdrawn_before_its_form_exists_ends_withdrawn_and_sends_nothing(gap: float) -> None:
    """`notifications/cancelled` right after `elicitation/create`, a handler answering 50 ms after the form.

    Found by test_fuzz_events (ops `elicit 1, cancel 1, await 1, result`): the withdrawal was only acted on
    0.1 s later, so the handler's accept came first; the card and the history said "accept" (nothing was
    sent: the SDK had dropped the request).
    """
    from mcp_widgets.core.history import default_history

    from .checks import Typist
    from .test_fuzz_events import RAW

    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    ops = [
        {"op": "elicit", "id": 1, "message": "Name?", "schema": schema},
        {"op": "sleep", "s": gap},
        {"op": "cancel", "id": 1, "text": "changed my mind"},
        {"op": "await", "id": 1, "timeout": 0.5},  # an answer sent back would arrive well within this
        {"op": "result", "text": "done", "echo": "plain"},  # quotes every answer that came back
    ]
    typist = Typist(CANARY, 123456789, delay=0.05)
    name = f"withdrawn-early-{gap}"
    with connect_sync(RAW, name=name, handler=typist, mode="legacy") as srv:
        assert srv.call_tool_sync("play", {"ops": ops}).content[0].text == "done"
    outcomes = [e.outcome for e in default_history().entries(server=name)]
    assert [(o.action.value, o.reason.value, o.note) for o in outcomes if o is not None] == [
        ("cancel", "withdrawn", "the server withdrew the request")
    ]
    for card in typist.cards:  # no card at all when the withdrawal came before the form was built
        assert card.outcome is not None
        assert (card.outcome.action.value, card.outcome.note) == ("cancel", "the server withdrew the request")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_typed_value_longer_than_the_clip_leaves_no_prefix_in_clipped_lines(mode: str) -> None:
    """An answer longer than where an error, a progress or a log line is cut, quoted back by the server.

    Lines were clipped first and redacted after: the cut-off start of the answer no longer matched it, and
    its first 2,000 characters stayed in the error, the progress line and the log (the closing text too).
    """
    import ipywidgets as w

    from .checks import closing_text

    chunk = "Q7zk"
    long = chunk * 700  # 2,800 characters: past every clip (2,000)
    schema = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5000}}, "required": ["a"]}
    script = {
        "asks": [{"message": "Name?", "schema": schema}],
        "steps": [{"do": kind, "text": "got", "echo": "plain"} for kind in ("progress", "log")],
        "end": {"kind": "error", "text": "bad", "echo": "plain"},
    }
    out = w.Output()
    answers = handlers.scripted([{"a": long}])
    srv = connect_sync(build_server(), name=f"clip-{mode}", handler=answers, mode=mode, output=out)
    with srv, pytest.raises(ServerError) as info:
        srv.call_tool_sync("play", {"script": script})
    closing = closing_text(out)
    out.close()
    assert "Progress" in closing and "[info]" in closing  # the lines are there, redacted
    assert chunk not in everything_in(info.value)
    assert chunk not in closing


@pytest.mark.parametrize("gap", [0.0, 0.3])
def test_questions_asked_after_the_call_ended_keep_a_bounded_number_of_forms(gap: float) -> None:
    """A server asking outside any call (here: right after the call's result, or `gap` s later), shown in
    `output=`.

    Found by test_fuzz_events (ops `result, flood 2`): each answered form kept its closing line alive with
    nothing to close it, so a server asking between calls piled up widget models; `srv.close()` left them.
    Without a kernel the client shows questions while the script waits on it (a call, `call.result()`,
    `srv.close()`), here as `kernel.wait_sync` does for a call: sleeping, as this test first did, passed
    only while the questions came before the call's wait ended (not on a loaded machine).
    """
    import ipywidgets as w
    from ipywidgets.widgets.widget import _instances

    from mcp_widgets import ElicitationForm
    from mcp_widgets.client.display import LOOSE_KEEP
    from mcp_widgets.core.history import default_history

    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    flood = 15  # the raw server runs one flood after its result (the bound on kept forms: test_loose_forms)
    late = {"op": "flood", "n": flood, "message": "late", "schema": schema}
    ops = [{"op": "result", "text": "done"}, {"op": "sleep", "s": gap}, late]
    out = w.Output()

    def alive() -> int:
        return sum(isinstance(x, ElicitationForm) for x in list(_instances.values()))

    before = alive()
    name = "asks-after-the-call"

    def answered() -> bool:
        entries = default_history().entries(server=name)
        return len(entries) >= flood and all(e.outcome is not None for e in entries)

    with after_the_call(name, ops, out, until=answered, what="the late questions were not all answered"):
        assert alive() - before <= LOOSE_KEEP
    out.close()
    assert alive() - before == 0


def test_loose_forms_keep_the_newest_and_close_the_rest() -> None:
    import ipywidgets as w

    from mcp_widgets.client.display import LooseForms

    loose = LooseForms(keep=3)
    labels = [w.Label(value=str(i)) for i in range(5)]
    for label in labels:
        loose.keep(label)
    assert [label.comm is None for label in labels] == [True, True, False, False, False]
    loose.close_all()
    assert all(label.comm is None for label in labels)


def test_a_refused_question_after_the_call_ended_leaves_no_line_alive() -> None:
    """A question with a malformed schema asked after the call's result: no call holds it, so the line that
    says it cannot be shown goes to `output=`; it is kept with the server's loose forms and closes with it.

    Found by test_fuzz_events (ops `..., result, elicit` with `allOf`): the line's Label stayed alive."""
    import ipywidgets as w
    from ipywidgets.widgets.widget import _instances

    from mcp_widgets.core.history import default_history
    from mcp_widgets.core.outcome import Reason

    from .checks import left_alive, live_models

    bad = {"type": "object", "properties": {}, "allOf": [{"type": "object"}]}
    ops = [{"op": "result", "text": "done"}, {"op": "elicit", "id": 2, "message": "late", "schema": bad}]
    out = w.Output()
    before = live_models()

    def lines() -> list[Any]:
        new = [_instances[k] for k in live_models() if k not in before]
        return [x for x in new if "cannot be shown" in str(getattr(x, "value", ""))]

    name = "refused-after-the-call"
    with after_the_call(
        name, ops, out, until=lambda: bool(lines()), what="the late question's line was not shown"
    ):
        (entry,) = default_history().entries(server=name)
        assert entry.outcome is not None and entry.outcome.reason == Reason.INVALID_SCHEMA
    out.close()
    assert left_alive(before) == {}


def test_a_refused_url_asked_after_the_call_ended_closes_with_the_server() -> None:
    """A URL-mode question with a URL we refuse, asked after the call's result: its card is over as it is
    built and no call's line holds it; it is kept with the server's loose cards and closes with it.

    Found by test_fuzz_events in CI (ops `..., result, elicit_url` with `https://x.test/<img …>`): the card
    was never closed, when the question came in after the call ended and before the next one began."""
    import ipywidgets as w

    from mcp_widgets import UrlCard
    from mcp_widgets.core.history import default_history
    from mcp_widgets.core.outcome import Reason

    from .checks import left_alive, live_models

    url = "https://x.test/<img src=x onerror=alert(1)>"
    late = {"op": "elicit_url", "id": "q", "message": "late", "url": url, "elicitationId": "e2"}
    ops = [{"op": "result", "text": "done"}, late]
    out = w.Output()
    before = live_models()
    name = "refused-url-after-the-call"

    def came() -> bool:
        return bool(default_history().entries(server=name))

    with after_the_call(name, ops, out, until=came, what="the late question did not come"):
        (entry,) = default_history().entries(server=name)
        assert entry.outcome is not None and entry.outcome.reason == Reason.REFUSED_URL
        cards = [w.Widget.widgets[k] for k in live_models() if k not in before]
        assert any(isinstance(card, UrlCard) for card in cards), "the refused card was not shown"
    out.close()
    assert left_alive(before) == {}
