"""ToolForm against the real in-process demo server: fill, run, see the result; bad input refused inline.

No kernel here: the tool's own questions are answered by handlers (a real kernel shows them in the result
area: tests/kernel/test_tool_form_kernel.py).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import re
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import ipywidgets as w
import mcp_types
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, SecretStr

from mcp_widgets import handlers
from mcp_widgets.client import Server, connect_sync
from mcp_widgets.core.exceptions import FieldNotFound, FormStateError
from mcp_widgets.demo import create_server
from mcp_widgets.widgets._tool_form import ToolForm, format_result, tool_form

from .conftest import HOSTILE, own_models

CANARY = "canary-tool-9c41e"

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def srv() -> Iterator[Server]:
    demo = create_server(sign_in_port=0)
    server = connect_sync(demo, handler=handlers.scripted([{"city": "Oslo"}]))
    yield server
    server.close()
    demo.sign_in.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def ran(form: ToolForm) -> Any:
    call = form.run()
    assert call is not None, form.errors
    return await form.wait()


def labels(form: ToolForm) -> list[str]:
    return [c.value for c in form.children if isinstance(c, w.Label) and c.value]


# --------------------------------------------------------------------------- building


def test_the_form_shows_the_tool_and_its_arguments(srv: Server) -> None:
    form = tool_form(srv, "search_files")
    assert labels(form)[:2] == [
        "Search files — tool search_files on mcp-widgets-demo",
        srv.tools[[t.name for t in srv.tools].index("search_files")].description,
    ]
    controls = {f.spec.name: f.control for f in form._fields.values()}
    assert isinstance(controls["query"], w.Text) and controls["query"].description == "Query *"
    assert isinstance(controls["kind"], w.RadioButtons)
    # Labels read alike: "kind" (no title) and "Sort By" (pydantic's) both become sentence case.
    assert [controls[n].description for n in ("kind", "sort_by", "options")] == ["Kind", "Sort by", "Options"]
    assert controls["kind"].options[0][0] == "(no answer)"  # optional: it can be left empty (null)
    assert isinstance(controls["limit"], w.Text) and controls["limit"].value == "10"
    assert isinstance(controls["tags"], w.Textarea) and isinstance(controls["options"], w.Textarea)
    assert "Nested object: edit as JSON." in form._fields["options"].note.value
    assert "One item per line." in form._fields["tags"].note.value
    assert form.errors == {"query": "required"} and form._run.disabled
    assert form._stop.disabled and not form.running and form.result is None
    form.close()


def test_unknown_tool_names_the_known_ones(srv: Server) -> None:
    with pytest.raises(KeyError, match="search_files"):
        tool_form(srv, "no_such_tool")


# --------------------------------------------------------------------------- running


def test_fill_run_and_see_the_result(srv: Server) -> None:
    async def scenario() -> None:
        form = tool_form(srv, "search_files")
        form.fill(query="tmp", kind="temporary", limit=2, sort_by="size", options={"min_size": 100})
        assert form.arguments == {
            "query": "tmp",
            "kind": "temporary",
            "limit": 2,
            "sort_by": "size",
            "tags": None,
            "options": {"min_size": 100},
        }
        result = await ran(form)
        assert isinstance(result, mcp_types.CallToolResult) and form.result is result
        assert result.structured_content == {
            "matches": [{"name": "draft.tmp", "size": 310}, {"name": "cache.tmp", "size": 4096}],
            "total": 2,
        }
        assert '"name": "draft.tmp"' in form.result_text and "Structured content" not in form.result_text
        assert not form.running and not form._run.disabled and form._stop.disabled
        # The values stay (a tool form is meant to be run again), and a new run replaces the result.
        assert form._fields["query"].control.value == "tmp"
        form.fill(query="notes", kind=None, options="")
        again = await ran(form)
        assert again.structured_content == {"matches": [{"name": "notes.txt", "size": 1204}], "total": 1}
        assert "draft.tmp" not in form.result_text and form.result_text.count("matches") == 1
        form.close()

    run(scenario())


def test_a_tool_that_asks_runs_from_the_form(srv: Server) -> None:
    async def scenario() -> None:
        form = tool_form(srv, "weather")
        assert form.field_names == ("city",) and form.arguments == {"city": None}
        result = await ran(form)  # no city: the tool asks, the scripted handler answers "Oslo"
        assert result.structured_content["city"] == "Oslo"
        assert '"city": "Oslo"' in form.result_text
        # The result shows once, in full: the call's display does not repeat it under its status line.
        shown = [str((o.get("data") or {}).get("text/plain", "")) for o in form._out.outputs]
        assert shown[0].splitlines() == [
            "Request from mcp-widgets-demo: accepted by handler 'scripted'",
            "tool 'weather' on 'mcp-widgets-demo': done",
        ]
        assert not any("Oslo" in line for line in shown)
        form.close()

    run(scenario())


def test_a_run_clicked_in_the_browser_waits_for_held_back_keystrokes(srv: Server) -> None:
    """The front end holds a control's update until the kernel is idle but sends a click at once: a Run
    clicked right after typing waits for the flush probe's reply, which comes after those updates."""

    async def scenario() -> None:
        form = tool_form(srv, "weather")
        form.run()  # from Python: no view, no probe
        await form.wait()
        style = form._style
        assert style.form_id == form.model_id  # its view waits until the kernel has every update of the form
        style._handle_custom_msg({"ready": True}, [])  # a view of the form is on screen
        form.fill(city="K")
        form._run._handle_custom_msg({"event": "click"}, [])  # as the browser sends it
        assert not form.running and style.flushes.token == 1
        form.fill(city="Kyoto")  # the keystrokes the front end held back, sent before its reply
        style._handle_custom_msg({"flushed": 1}, [])
        assert form.running
        result = await form.wait()
        assert result.structured_content["city"] == "Kyoto"
        form.close()

    run(scenario())


def test_stop_cancels_and_the_form_runs_again(srv: Server) -> None:
    async def scenario() -> None:
        form = tool_form(srv, "long_task")
        form.fill(seconds=60, steps=2)
        call = form.run()
        assert form.running and form._run.disabled and not form._stop.disabled
        assert form.run() is None  # Run is disabled while the call runs
        assert form.stop()
        with pytest.raises(asyncio.CancelledError):
            await form.wait()
        assert call.state == "cancelled" and "cancelled" in form.result_text
        assert not form.running and not form._run.disabled
        form.fill(seconds=0, steps=1)
        assert (await ran(form)).structured_content == {"done": True, "steps": 1}
        form.close()

    run(scenario())


def test_a_failed_call_is_shown_and_the_form_stays_usable() -> None:
    demo = create_server(sign_in_port=0)
    server = connect_sync(demo)
    try:
        form = tool_form(server, "search_files")
        form.fill(query="x")
    finally:
        server.close()
        demo.sign_in.close()

    async def scenario() -> None:
        assert form.run() is None  # started nothing ...
        with pytest.raises(Exception, match=r"not connected|closed"):
            await form.wait()
        assert form.result_text.startswith("⚠ Could not run the tool:")  # ... and says why
        assert not form.running and not form._run.disabled

    run(scenario())
    form.close()


# --------------------------------------------------------------------------- refused inline


def test_invalid_json_and_values_are_refused_inline(srv: Server) -> None:
    form = tool_form(srv, "search_files")
    form.fill(query="q", options='{"min_size": ' + CANARY)
    options = form._fields["options"]
    error = options.alert.value
    assert error.startswith("⚠ Error: not valid JSON (") and CANARY not in error
    assert options.note.value == "Finer control. Nested object: edit as JSON."  # the error has its own line
    assert form.children.index(options.alert) == form.children.index(options.note) + 1
    assert form._run.disabled and form.run() is None and form.call is None
    assert "Options" in form._run.tooltip
    form.fill(options='{"min_size": -1}')
    assert "min_size: must be at least 0" in options.alert.value
    form.fill(options='{"case_sensitive": "' + CANARY + '"}', limit="1000")
    assert form.errors == {
        "options": "case_sensitive: must be true or false",
        "limit": "must be at most 100",
    }
    assert "Limit" in form._run.tooltip
    form.fill(limit=5, options={"case_sensitive": True})
    assert form.errors == {} and not form._run.disabled
    assert CANARY not in repr(form) and CANARY not in form._run.tooltip
    form.close()


def test_fill_refuses_what_no_person_could_enter(srv: Server) -> None:
    form = tool_form(srv, "search_files")
    with pytest.raises(FieldNotFound, match="query"):
        form.fill(nope=1)
    with pytest.raises(TypeError):
        form.fill(tags=[1, 2])
    with pytest.raises(ValueError):
        form.fill(kind="not-a-kind")
    form.close()
    with pytest.raises(FormStateError):
        form.fill(query="x")
    assert form.run() is None


# --------------------------------------------------------------------------- server text is text


PICKS = ("<b>bold</b>", "<script>x()</script>")


def hostile_server() -> MCPServer:
    server = MCPServer("hostile")

    @server.tool(title=HOSTILE, description=HOSTILE)
    def evil(
        pick: Literal["<b>bold</b>", "<script>x()</script>"],  # = PICKS
        note: Annotated[str, Field(title=HOSTILE, description=HOSTILE)] = "",
        blob: Annotated[dict[str, int] | None, Field(description=HOSTILE)] = None,
    ) -> str:
        return HOSTILE + "\x1b[31m red \r over"

    @server.tool(description="Always fails, quoting its input.")
    def broken(text: str) -> str:
        raise ToolError(f"cannot handle {HOSTILE}")

    return server


def test_hostile_text_is_shown_as_text() -> None:
    server = connect_sync(hostile_server())
    try:

        async def scenario() -> None:
            form = tool_form(server, "evil")
            assert labels(form)[:2] == [f"{HOSTILE} — tool evil on hostile", HOSTILE]
            models = form._kit.models
            assert not [m for m in models if isinstance(m, w.HTML | w.HTMLMath)]
            for model in models:
                if "description_allow_html" in model.trait_names():
                    assert model.description_allow_html is False
            assert form._fields["pick"].control.options == tuple((v, v) for v in PICKS)
            form.fill(pick="<b>bold</b>")
            await ran(form)
            out = form._out.outputs
            streams = [o for o in out if o.get("output_type") == "stream"]
            assert streams and all(set(o) == {"output_type", "name", "text"} for o in streams)
            # The closing text's HTML (wrapping between words) is ours; every character of theirs is escaped.
            pages = [o["data"]["text/html"] for o in out if "text/html" in o.get("data", {})]
            for page in pages:
                assert "<" not in re.sub(r"</?(div|pre|details|summary)( [^>]*)?>", "", page)
            assert HOSTILE in form.result_text
            # Terminal escapes and carriage returns are shown, not obeyed.
            assert "\x1b" not in form.result_text and "\r" not in form.result_text
            assert "\\x1b[31m red \\x0d over" in form.result_text
            form.close()

            failing = tool_form(server, "broken")
            failing.fill(text="x")
            result = await ran(failing)
            assert result.is_error
            assert failing.result_text.startswith("⚠ The tool reported an error:\n")
            failing.close()

        run(scenario())
    finally:
        server.close()


def test_secrets_are_masked() -> None:
    server = MCPServer("keys")

    @server.tool(description="Uses an API key.")
    def use_key(key: SecretStr, label: str = "") -> str:
        return f"key of {len(key.get_secret_value())} characters"

    srv = connect_sync(server)
    try:

        async def scenario() -> None:
            form = tool_form(srv, "use_key")
            assert isinstance(form._fields["key"].control, w.Password)
            assert not isinstance(form._fields["label"].control, w.Password)
            form.fill(key=CANARY)
            assert CANARY not in repr(form._fields["key"].control)
            await ran(form)
            assert form.result_text == f"key of {len(CANARY)} characters\n"
            form.close()

        run(scenario())
    finally:
        srv.close()


def test_a_results_text_and_images_show_in_the_servers_order() -> None:
    # As an awaited result shows them: each image under the line naming it, the text after it after it (the
    # images were all moved under the text, so "the image above" read false).
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
    gif = base64.b64encode(b"GIF89a" + b"\0" * 32).decode()
    server = MCPServer("pictures")

    @server.tool(description="Text and pictures.")
    async def picture() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(
            content=[
                mcp_types.TextContent(type="text", text="a dot"),
                mcp_types.ImageContent(type="image", data=png, mime_type="image/png"),
                mcp_types.TextContent(type="text", text="The image above is a dot."),
                mcp_types.ImageContent(type="image", data="PHN2Zz4=", mime_type="image/svg+xml"),  # a line
                mcp_types.ImageContent(type="image", data=gif, mime_type="image/gif"),
                mcp_types.TextContent(type="text", text="The end."),
            ]
        )

    with connect_sync(server) as srv:
        form = tool_form(srv, "picture")
        run(ran(form))
        outputs = list(form._out.outputs)
        shown = [
            o["text"] if o.get("output_type") == "stream" else next(k for k in o["data"] if k != "text/plain")
            for o in outputs
            if o.get("output_type") == "stream" or "mcp_widgets_media" in (o.get("metadata") or {})
        ]
        assert shown == [
            "a dot\n[image: image/png, about 72 bytes]\n",
            "image/png",
            "The image above is a dot.\n[image: image/svg+xml, about 6 bytes]\n"
            "[image: image/gif, about 39 bytes]\n",
            "image/gif",
            "The end.\n",
        ], shown
        media = [o["data"] for o in outputs if "mcp_widgets_media" in (o.get("metadata") or {})]
        assert [m.get("image/png") or m.get("image/gif") for m in media] == [png, gif]
        assert form.result_text == format_result(srv.call_tool_sync("picture", {}))
        form.close()


def test_format_result_shapes() -> None:
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text="hello"),
            mcp_types.ImageContent(type="image", data="AAAA", mime_type="image/png"),
            mcp_types.ResourceLink(type="resource_link", uri="demo://x", name="x"),
        ],
        structured_content={"a": 1},
    )
    assert format_result(result).splitlines() == [
        "hello",
        "[image: image/png, about 3 bytes]",
        "[resource link: demo://x]",
        "Structured content:",
        "{",
        '  "a": 1',
        "}",
    ]
    assert format_result(mcp_types.CallToolResult(content=[])) == "(the tool returned nothing)\n"


# --------------------------------------------------------------------------- privacy and models


def test_typed_arguments_are_not_logged_or_in_reprs(srv: Server, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        form = tool_form(srv, "search_files")
        form.fill(query=CANARY, tags=[CANARY], options={"min_size": 1})
        await ran(form)
        assert CANARY not in repr(form) and CANARY not in repr(form.call) and CANARY not in repr(srv)
        form.close()

    with (
        caplog.at_level(logging.DEBUG, logger="mcp_widgets"),
        caplog.at_level(logging.DEBUG, logger="mcp.client"),
    ):
        run(scenario())
    ours = [r for r in caplog.records if r.name.startswith(("mcp_widgets", "mcp.client"))]
    assert not [r for r in ours if CANARY in r.getMessage()]


def test_close_leaves_no_models(srv: Server, baseline: int) -> None:
    async def scenario() -> None:
        form = tool_form(srv, "search_files")
        form.fill(query="tmp", options="{}")
        await ran(form)
        await ran(form)
        form.close()
        form.close()  # twice is fine

    run(scenario())
    assert len(own_models()) == baseline


def test_model_count(srv: Server, baseline: int) -> None:
    form = tool_form(srv, "search_files")
    made = len(own_models()) - baseline
    # 6 fields (a control and a note each), 2 header lines, the problem line, Run, Stop, Copy as code, the
    # line why Run is disabled, their box, the result area, the CSS carrier and the form itself (Layouts and
    # Styles are shared by every form).
    assert made == 23, made
    form.close()
    assert len(own_models()) == baseline


# --------------------------------------------------------------------------- copy as code


def test_copy_as_code_gives_the_call_with_what_is_typed(srv: Server) -> None:
    """Outside a notebook no name binds the server: `srv`. The arguments are those Run would send."""
    import ast

    form = tool_form(srv, "weather")
    call = ast.parse(form.code.removeprefix("await ")).body[0].value  # type: ignore[attr-defined]
    assert [ast.literal_eval(a) for a in call.args] == ["weather", form.arguments]
    form.fill(city="Kyoto")
    assert form.code == 'await srv.call_tool("weather", {"city": "Kyoto"})'
    assert "Copy as code" in [b.description for b in form.children[-3].children if isinstance(b, w.Button)]
    form.close()


def test_copy_as_code_never_holds_a_masked_value() -> None:
    server = MCPServer("keys")

    @server.tool(description="Uses an API key.")
    def use_key(key: SecretStr, label: str = "") -> str:
        return "ok"

    srv = connect_sync(server)
    try:
        form = tool_form(srv, "use_key")
        form.fill(key=CANARY, label="mine")
        code = form.code
        assert CANARY not in code
        assert code == (
            'await srv.call_tool("use_key", {"key": ..., "label": "mine"})  # fill in "key": not copied'
        )
        form._copy_clicked()  # sends the code to the page (no page here: nothing happens, nothing raises)
        form.close()
    finally:
        srv.close()
