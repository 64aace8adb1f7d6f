"""A prompt or template form's text fields offer the server's completions as the person types, against a
real in-process MCPServer that completes (tests/servers/completing.py), on both protocol generations: driven
from Python (`fill`, `wait_suggestions`, `pick`), as the browser does (the list's pick and close messages).
A slow or failing server shows no suggestions and never raises; what is typed stays out of the wire, the
logs and the reprs, and the list's values leave its model once it closes."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_widgets.client import Server, connect_sync
from mcp_widgets.widgets import PromptForm
from mcp_widgets.widgets._completion import SuggestList
from tests.servers.completing import TEMPLATE, build_server
from tests.servers.templated import build_server as without_completions

pytestmark = pytest.mark.timeout(60)
GENERATION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


@pytest.fixture(params=["auto", "legacy"])
def srv(request: pytest.FixtureRequest) -> Iterator[Server]:
    server = connect_sync(build_server(), mode=request.param)
    assert server.protocol_version == GENERATION[request.param]
    yield server
    server.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def lists(form: Any) -> list[SuggestList]:
    return [c for c in form.children if isinstance(c, SuggestList)]


def test_a_text_field_offers_the_servers_values_as_you_type(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("trip")
        assert isinstance(form, PromptForm) and form.suggesting == ("city", "month", "note")
        names = [type(c).__name__ for c in form.children]
        assert names.index("SuggestList") == names.index("Text") + 1  # right under its field
        form.fill(month="ju")
        got = await form.wait_suggestions("month")
        assert got is not None and got.values == ["June", "July"] and got.count_text == "2"
        view = lists(form)[1]
        assert view.values == ["June", "July"] and view.count == "2 suggestions"
        form.pick("month", "July")
        assert form._fields["month"].control.value == "July"
        assert view.values == [] and form.suggestions("month") is None  # closed: the values are gone
        await asyncio.sleep(0.2)
        assert form.suggestions("month") is None  # picking asked nothing more
        form.fill(city="o")
        many = await form.wait_suggestions("city")
        assert many is not None and len(many.values) == 100 and many.count_text == "100 of 122"
        assert lists(form)[0].count == "100 of 122 suggestions"
        with pytest.raises(ValueError, match="shows no such value"):
            form.pick("city", "Atlantis")
        form.close()

    run(scenario())


def test_the_other_fields_go_as_context(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.template_form(TEMPLATE)
        assert form.suggesting == ("city", "day")
        form.fill(city="Paris")
        await form.wait_suggestions("city")
        form.fill(day="")
        form.fill(day="t")
        got = await form.wait_suggestions("day")
        assert got is not None and got.values == ["tuesday"]
        form.close()

    run(scenario())


def test_the_browser_picks_by_index_and_closing_empties_the_list(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("trip")
        view = lists(form)[1]
        form.fill(month="m")
        await form.wait_suggestions("month")
        assert view.values == ["March", "May"]
        view._handle_custom_msg({"pick": 1}, [])  # Enter on the second value
        assert form._fields["month"].control.value == "May" and view.values == []
        form.fill(month="ma")
        await form.wait_suggestions("month")
        view._handle_custom_msg({"closed": True}, [])  # Escape, or leaving the field
        assert view.values == [] and view.count == ""
        form.close()

    run(scenario())


def test_typing_fast_sends_one_request_and_shows_the_newest(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("trip")
        before = len(srv.wire.records(method="completion/complete", direction="out"))
        for typed in ["S", "Se", "Sep"]:
            form.fill(month=typed)
        got = await form.wait_suggestions("month")
        assert got is not None and got.values == ["September"]
        sent = len(srv.wire.records(method="completion/complete", direction="out")) - before
        assert sent == 1
        form.close()

    run(scenario())


def test_a_slow_or_failing_server_shows_nothing_and_never_blocks(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("trip")
        started = time.perf_counter()
        form.fill(city="slow")  # answered after 2 s
        assert time.perf_counter() - started < 0.5  # typing went on at once
        form.fill(city="Pa")  # a newer keystroke: the slow answer is dropped
        got = await form.wait_suggestions("city")
        assert got is not None and got.values == ["Paris"]
        form.fill(city="boom")
        assert await form.wait_suggestions("city") is None  # the server's error: no suggestions
        assert form.errors == {}
        form.close()

    run(scenario())


def test_what_is_typed_stays_out_of_the_wire_logs_and_reprs(
    srv: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    async def scenario() -> None:
        form = srv.prompt_form("trip")
        form.fill(note="Zq-Secret-5521")
        await form.wait_suggestions("note")
        form.fill(city="boom-Zq-Secret")
        await form.wait_suggestions("city")
        kept = json.dumps(srv.wire.records(), ensure_ascii=False)
        assert "Zq-Secret" not in kept and "completion/complete" in kept
        assert "Zq-Secret" not in repr(form) and "Zq-Secret" not in repr(lists(form)[0])
        assert "Zq-Secret" not in caplog.text
        form.close()

    run(scenario())


def test_without_completions_the_fields_offer_nothing() -> None:
    with connect_sync(without_completions(), mode="legacy") as srv:
        form = srv.template_form("demo://resource/dynamic/text/{resourceId}")
        assert form.suggesting == () and not lists(form)
        form.fill(resourceId="3")
        assert not srv.wire.records(method="completion/complete")
        form.close()


def test_arrow_down_on_a_closed_list_asks_again(srv: Server) -> None:
    async def scenario() -> None:
        form = srv.prompt_form("trip")
        view = lists(form)[1]
        form.fill(month="ap")
        await form.wait_suggestions("month")
        view._handle_custom_msg({"closed": True}, [])  # Escape: closed and emptied
        assert view.values == []
        view._handle_custom_msg({"ask": True}, [])  # ArrowDown in the field
        got = await form.wait_suggestions("month")
        assert got is not None and got.values == ["April"] and view.values == ["April"]
        form.close()

    run(scenario())


ODD_VALUES = ["two  spaces", "tab\there", "bidi\u202eevil", "x" * 3000]
"""What a server may complete: spaces kept, a tab, a bidi override, a long value (within the cap)."""


def odd_server() -> Any:
    import mcp_types
    from mcp.server.mcpserver import MCPServer

    server: Any = MCPServer("odd")

    @server.prompt(name="memo", description="One text argument.")
    def memo(text: str) -> str:
        return f"memo: {text}"

    @server.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> mcp_types.Completion:
        return mcp_types.Completion(values=[*ODD_VALUES, "y" * 5000])  # past the cap (VALUE_CAP, 4096)

    return server


def test_values_are_drawn_clipped_and_inserted_as_the_server_sent_them() -> None:
    """The list draws each value on one line with escapes visible, a long one shortened; a pick (from the
    browser, by index, or from Python) inserts the value itself, never the shortened text; a value over the
    cap is not offered."""

    async def scenario(srv: Server) -> None:
        form = srv.prompt_form("memo")
        view = lists(form)[0]
        form.fill(text="a")
        got = await form.wait_suggestions("text")
        assert got is not None and got.values == ODD_VALUES  # the one past the cap is not offered
        assert view.values == [
            "two  spaces",
            "tab\\x09here",
            "bidiU+202Eevil",
            "x" * 200 + "… (2800 more characters)",  # SHOWN_KEEP
        ]
        view._handle_custom_msg({"pick": 3}, [])  # a click on the long one
        assert form._fields["text"].control.value == "x" * 3000
        for index, value in enumerate(ODD_VALUES[:3]):
            form.fill(text="a")
            await form.wait_suggestions("text")
            view._handle_custom_msg({"pick": index}, [])
            assert form._fields["text"].control.value == value
        form.fill(text="a")
        await form.wait_suggestions("text")
        form.pick("text", "two  spaces")
        assert form._fields["text"].control.value == "two  spaces"
        form.close()

    with connect_sync(odd_server()) as srv:
        run(scenario(srv))
