"""The explorer (`srv.explore()`, widgets/_explorer.py) driven from Python against a real in-process server
of 200 tools: nothing built for a section never opened, listings, forms opened from it, literal text."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import ipywidgets as w
import pytest

from mcp_widgets import kernel
from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.text import LITERAL_CLASSES
from mcp_widgets.widgets import (
    Explorer,
    HistoryPanel,
    MarkdownOffer,
    PromptForm,
    TemplateForm,
    ToolForm,
    WireView,
)
from tests.servers.explored import LONG_LINES, build_server

from .conftest import own_models


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    server = connect_sync(build_server(200), mode="legacy")
    yield server
    server.close()


def kinds(models: dict[str, w.Widget]) -> list[str]:
    return sorted(type(m).__name__ for m in models.values())


def new_models(before: dict[str, w.Widget]) -> dict[str, w.Widget]:
    return {k: m for k, m in own_models().items() if k not in before}


def test_nothing_is_built_for_a_section_never_opened(srv: Server) -> None:
    small = connect_sync(build_server(2, name="small"), mode="legacy")
    try:
        before = own_models()
        few = small.explore()
        made_small = new_models(before)
        before = own_models()
        explorer = srv.explore()
        made = new_models(before)
        # the same models for 200 tools as for 2: the header, the section buttons, an empty body
        assert kinds(made) == kinds(made_small) and len(made) <= 16
        assert not any(isinstance(m, (w.Select, ToolForm, WireView, HistoryPanel)) for m in made.values())
        assert explorer.built == [] and explorer.section == ""
        assert explorer.sections == ("Tools", "Prompts", "Resources", "Templates", "Wire", "History")
        assert explorer._nav.options[0][0] == "Tools (200)"
        few.close()
    finally:
        small.close()


def test_opening_tools_lists_all_200_in_one_list(srv: Server) -> None:
    explorer = srv.explore()
    before = own_models()
    items = explorer.items("Tools")
    assert len(items) == 200 and items[0] == "tool_0: Tool number 0: looks a city up."
    made = new_models(before)
    assert len(made) <= 8 and sum(isinstance(m, w.Select) for m in made.values()) == 1
    assert explorer.built == ["Tools"] and explorer.section == "Tools"
    explorer.show("Prompts")
    explorer.show("Tools")  # built once, kept
    assert explorer.built == ["Tools", "Prompts"]
    explorer.close()


def test_a_long_description_is_cut_after_a_word_and_its_row_tooltip_has_it_whole(srv: Server) -> None:
    explorer = srv.explore()
    row = explorer.items("Tools")[1]
    assert row.startswith("tool_1: Tool number 1: looks a city up,") and row.endswith("…")
    assert row[-2].isalpha() and "more character" not in row  # a whole word, then the ellipsis
    assert len(row) <= len("tool_1: ") + 100
    # the tooltips the page sets on the rows (as text): each item's name and whole description, every line
    tips = explorer.tips["Tools"]
    assert len(tips) == 200 and tips[1] == "tool_1\n" + "\n".join(LONG_LINES)
    assert tips[0] == "tool_0\nTool number 0: looks a city up."
    # the list names its section, for the page to find its tooltips
    assert "mcp-widgets-explorer-section-Tools" in explorer._lists["Tools"][0]._dom_classes
    explorer.close()


def test_a_tool_opens_its_form_and_runs(srv: Server) -> None:
    explorer = srv.explore()
    form = explorer.open_item("Tools", "tool_7")
    assert isinstance(form, ToolForm) and form.tool_name == "tool_7" and form.field_names == ("city", "days")
    assert form in explorer._lists["Tools"][2].children  # shown under the list
    form.fill(city="Oslo", days=3)
    assert form.run() is not None
    result = asyncio.run(form.wait())
    assert result.content[0].text == "tool_7: Oslo for 3 days"
    second = explorer.open_item("Tools", "tool_8")
    assert second is not form and form._closed  # one form at a time: the previous one is closed
    explorer.close()
    assert second._closed


def test_the_browser_opens_the_item_its_list_shows_chosen(srv: Server) -> None:
    explorer = srv.explore()
    explorer.show("Tools")
    explorer._handle_custom_msg({"open": 4}, [])  # Enter in the list, or a click on Open (explorer.js)
    place = explorer._lists["Tools"][2]
    assert [f.tool_name for f in place.children] == ["tool_4"]
    for junk in ({"open": 999}, {"open": True}, {"open": "1"}, {"other": 1}, [1]):
        explorer._handle_custom_msg(junk, [])
    assert [f.tool_name for f in place.children] == ["tool_4"]
    explorer.show("Prompts")
    explorer.show("Tools")  # back: the list shows the tool opened from it
    assert explorer._lists["Tools"][0].value == "tool_4"
    explorer.close()


def test_prompts_templates_and_resources(srv: Server) -> None:
    explorer = srv.explore()
    assert explorer.items("Prompts") == ["greet: Greets someone."]
    assert isinstance(explorer.open_item("Prompts", "greet"), PromptForm)
    assert isinstance(explorer.open_item("Templates", "note://item/{id}"), TemplateForm)
    assert explorer.open_item("Resources", "note://readme") is None
    out = explorer._lists["Resources"][3]
    deadline = time.monotonic() + 10
    while "readme says" not in str(out.outputs) and time.monotonic() < deadline:
        time.sleep(0.02)
        kernel.flush_posted()
    assert "the readme says $x$ hello" in str(out.outputs)
    assert explorer._opened.get("Resources") is None  # plain text: nothing offered
    # A Markdown resource: its source as text, and an offer to draw it (a tree of plain elements and text)
    offer = explorer.open_item("Resources", "note://guide.md")
    assert isinstance(offer, MarkdownOffer) and offer.tree == [] and not offer.drawn
    deadline = time.monotonic() + 10
    while not offer.tree and time.monotonic() < deadline:
        time.sleep(0.02)
        kernel.flush_posted()
    assert "# Guide to $x$" in str(out.outputs)  # the source, as text
    assert offer.tree[0] == {"tag": "h1", "children": ["Guide to $x$"]}
    assert offer in explorer._lists["Resources"][2].children  # shown under the list
    offer.show()
    assert offer.drawn
    explorer.close()
    assert offer.comm is None  # closed with the explorer


def test_the_wire_and_the_history(srv: Server) -> None:
    explorer = srv.explore()
    assert isinstance(explorer.show("Wire"), WireView)
    history = explorer.show("History")
    assert isinstance(history, HistoryPanel) and "explored" in repr(history)
    explorer.close()
    assert history.comm is None


def test_server_strings_are_literal_text(srv: Server) -> None:
    explorer = srv.explore()
    labels = [c for c in explorer.children if isinstance(c, w.Label)]
    said = labels[-1]
    assert said.value.startswith("Instructions: Start with tool_0. Costs $5 and $10")
    assert "\x1b" not in said.value and "\\x1b[31m" in said.value and "<b>bold</b>" in said.value
    assert all(c in said._dom_classes for c in LITERAL_CLASSES) and not isinstance(said, w.HTML)
    explorer.close()


def test_closing_closes_every_model_it_made(srv: Server) -> None:
    before = own_models()
    explorer = srv.explore()
    explorer.open_item("Tools", "tool_1")
    explorer.show("Wire")
    explorer.show("History")
    explorer.close()
    assert new_models(before) == {}


def test_without_a_frontend_or_once_closed_a_server_shows_its_text(srv: Server) -> None:
    assert srv._repr_mimebundle_() == {"text/plain": repr(srv)}  # plain python: no frontend
    assert isinstance(srv.explore(), Explorer)
    ended = connect_sync(build_server(2, name="ended"), mode="legacy")
    ended.close()
    assert ended._repr_mimebundle_() == {"text/plain": repr(ended)}


def test_apps_are_a_section_where_a_tool_has_one() -> None:
    from mcp_widgets.demo import create_server
    from mcp_widgets.widgets import AppView

    with connect_sync(create_server(sign_in_port=0), name="demo") as demo:
        explorer = demo.explore()
        assert "Apps" in explorer.sections
        assert any(item.startswith("roll_dice") for item in explorer.items("Apps"))
        view = explorer.open_item("Apps", "roll_dice")
        assert isinstance(view, AppView) and view.tool == "roll_dice"
        explorer.close()
    with connect_sync(create_server(sign_in_port=0), name="demo", apps=False) as plain:
        assert "Apps" not in plain.explore().sections
    with connect_sync(build_server(0, name="no-tools"), mode="legacy") as empty:
        explorer = empty.explore()
        assert "Apps" not in explorer.sections and explorer.items("Tools") == []
        assert explorer._sections["Tools"].value == "No tools."
        explorer.close()


def test_a_hostile_description_is_listed_as_text() -> None:
    from tests.servers.awkward_names import build_server as awkward

    with connect_sync(awkward(), name="awkward") as server:
        explorer = server.explore()
        items = explorer.items("Tools")
        hostile = next(i for i in items if i.startswith("hostile"))
        assert "\x1b" not in hostile and "\u202e" not in hostile and "\\x1b" in hostile
        assert "_ipython_display_" in [key for _, key in explorer._lists["Tools"][0].options]
        explorer.close()


def test_long_instructions_fold_after_three_lines_and_open_on_a_click() -> None:
    """server-everything's 35 lines of instructions pushed the sections off the first screen."""
    from mcp.server.mcpserver import MCPServer

    from mcp_widgets.widgets._kit import click

    lines = [f"Line {i}: use tool_{i} \x1b[31mfirst\x1b[0m." for i in range(35)]
    server = connect_sync(MCPServer("long", instructions="\n".join(lines)), mode="legacy")
    try:
        explorer = server.explore()
        folded = explorer.instructions
        assert folded.startswith("Instructions: Line 0") and "Line 2:" in folded and "Line 3:" not in folded
        assert folded.endswith(" …") and "\\x1b[31m" in folded and "\x1b" not in folded
        fold = next(c for c in explorer.children if isinstance(c, w.Button))
        assert fold.description == "Show all instructions (35 lines)"
        click(fold)
        assert explorer.instructions.endswith("Line 34: use tool_34 \\x1b[31mfirst\\x1b[0m.")
        assert fold.description == "Show fewer"
        click(fold)
        assert explorer.instructions == folded
        explorer.close()
    finally:
        server.close()


def test_short_instructions_are_not_folded(srv: Server) -> None:
    explorer = srv.explore()
    assert explorer.instructions.startswith("Instructions: Start with tool_0.")
    assert not any(isinstance(c, w.Button) for c in explorer.children)
    explorer.close()


def test_an_explorer_says_when_its_server_is_gone_and_comes_back() -> None:
    """The server exits: the explorer says so under its title and its open buttons are disabled (the wire
    stays readable); once reconnected it is live again. Closing the server marks it too."""
    import sys
    from pathlib import Path

    from mcp_widgets import ConnectionClosedError
    from mcp_widgets.core.exceptions import MCPWidgetsError

    raw = [sys.executable, str(Path(__file__).resolve().parents[2] / "servers" / "rawrpc.py")]
    srv = connect_sync(raw, name="leaving", mode="legacy")
    try:
        explorer = srv.explore()
        explorer.show("Tools")
        button = explorer._lists["Tools"][1]
        assert explorer.ended is None and not button.disabled
        with pytest.raises((ConnectionClosedError, MCPWidgetsError)):
            srv.call_tool_sync("play", {"ops": [{"op": "exit"}]})
        deadline = time.monotonic() + 30
        while explorer.ended is None:
            assert time.monotonic() < deadline, "the explorer still looks live"
            kernel.flush_posted()
            time.sleep(0.05)
        line = explorer.children[1]
        assert isinstance(line, w.Label) and line.value.startswith("⚠ Not connected: the server closed.")
        assert button.disabled
        assert isinstance(explorer.show("Wire"), WireView)  # what was said stays readable
        srv.reconnect()
        deadline = time.monotonic() + 30
        while explorer.ended is not None:
            assert time.monotonic() < deadline, "the explorer still says it is closed"
            kernel.flush_posted()
            time.sleep(0.05)
        assert line not in explorer.children and not button.disabled
        srv.close()
        assert explorer.ended == "the connection was closed" and button.disabled
        assert srv.explore().ended == "the connection has ended"  # one made afterwards says so at once
        explorer.close()
    finally:
        srv.close()
