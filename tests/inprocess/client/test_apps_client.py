"""MCP Apps from plain Python (no front end): the extension is advertised (or not, with apps=False) on both
protocol generations, calls never wait for an app, app tools are marked in `srv.tools`, and an app view keeps
no document and nothing typed in the state a saved notebook would hold."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp.server.apps import client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

import mcp_widgets as mw
from mcp_widgets.demo import create_server


def app_aware_server() -> MCPServer[Any]:
    server = MCPServer("aware")

    @server.tool(name="supports_apps")
    def supports_apps(ctx: Context) -> str:
        return "yes" if client_supports_apps(ctx) else "no"

    return server


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("apps", [True, False])
def test_the_extension_is_advertised_unless_turned_off(mode: str, apps: bool) -> None:
    async def main() -> str:
        async with await mw.connect(app_aware_server(), mode=mode, apps=apps) as srv:
            result = await srv.call_tool("supports_apps")
            return str(result.content[0].text)  # type: ignore[union-attr]

    assert asyncio.run(main()) == ("yes" if apps else "no")


def test_headless_calls_show_no_app_and_wait_for_none() -> None:
    async def main() -> tuple[int, list[Any], str]:
        async with await mw.connect(create_server(sign_in_port=0), name="demo") as srv:
            result = await srv.call_tool("roll_dice", {"count": 4})
            tools = str(srv.tools)
            return len(result.structured_content["rolls"]), srv.apps, tools  # type: ignore[index]

    count, views, tools = asyncio.run(main())
    assert count == 4 and views == []
    assert "[app] Roll some dice" in tools
    assert "[app only] Roll the same dice again" in tools


def test_open_app_gives_a_view_whose_saved_state_holds_no_app() -> None:
    async def main() -> Any:
        srv = await mw.connect(create_server(sign_in_port=0), name="demo")
        try:
            with pytest.raises(ValueError, match=r"no tool 'delete_files' with an app.*roll_dice"):
                srv.open_app("delete_files")
            view = srv.open_app("roll_dice", {"count": 2})
            assert srv.apps == [view]
            # The app waits for a result no call brings: the line under it says why, and what shows one.
            assert view.lines == [
                "Opened without calling roll_dice: the app gets the arguments given and no result. "
                "Call the tool to see it with one."
            ]
            bare = srv.open_app("roll_dice").lines[0]
            assert bare.startswith("Opened without calling roll_dice: the app gets no tool input or result.")
            srv.apps[-1].close()
            # A table like the server's other listings (not a list of <AppView ...> reprs).
            assert repr(srv.apps).splitlines() == [
                "tool       app                  state",
                "---------  -------------------  --------",
                "roll_dice  ui://demo/dice.html  starting",
            ]
            page = srv.apps._repr_html_()
            assert page.startswith('<table class="mathjax_ignore tex2jax_ignore">')
            assert "<td style='text-align:left;vertical-align:top'>ui://demo/dice.html</td>" in page
            models = (view, view.title, view.frame, view.calls, *view.children)
            state = json.dumps([w.get_state() for w in models])
            assert "Roll again" not in state  # the app's own text
            # Beside the relay's code (which builds the frame around the app's), no document, no policy.
            data = json.dumps([{k: v for k, v in w.get_state().items() if k != "_esm"} for w in models])
            assert "<!DOCTYPE" not in data and "Content-Security-Policy" not in data
            assert view._repr_mimebundle_()["text/plain"] == "App roll_dice from demo: not live"
            assert (view.tool, view.resource_uri, view.server) == ("roll_dice", "ui://demo/dice.html", "demo")
            assert not view.initialized
            view.close()  # never initialized: closes at once, nothing to tell
            assert view.closed and srv.apps == [] and repr(srv.apps) == "(no apps)"
        finally:
            await srv.aclose()

    asyncio.run(main())


def test_a_runaway_caller_keeps_a_bounded_number_of_apps() -> None:
    from mcp_widgets.client.apps.host import MAX_VIEWS

    async def main() -> None:
        async with await mw.connect(create_server(sign_in_port=0), name="demo") as srv:
            views = [srv.open_app("roll_dice") for _ in range(MAX_VIEWS + 3)]
            assert srv.apps == views[3:]
            assert all(v.closed for v in views[:3]) and not any(v.closed for v in views[3:])

    asyncio.run(main())


def test_a_view_s_live_state_is_the_bridge_s_and_starts_again_with_a_new_view() -> None:
    """The app says it is initialized in one front-end view: the view reads "live"; the page reloads (a new
    view says ready): the app starts again, and the view says so too (it kept a copy that stayed True)."""

    async def main() -> None:
        srv = await mw.connect(create_server(sign_in_port=0), name="demo")
        try:
            view = srv.open_app("roll_dice", {"count": 2})
            frame = view.frame

            def from_page(content: dict[str, Any]) -> None:
                frame._handle_custom_msg(content, [])

            from_page({"view": "v1", "kind": "ready", "context": {"theme": "light"}})
            initialized = {"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}}
            from_page({"view": "v1", "kind": "rpc", "origin": "null", "texts": [json.dumps(initialized)]})
            assert view.initialized and "live" in repr(srv.apps)
            from_page({"view": "v2", "kind": "ready", "context": {"theme": "dark"}})
            assert not view.initialized and "starting" in repr(srv.apps)
            view.close()
        finally:
            await srv.aclose()

    asyncio.run(main())
