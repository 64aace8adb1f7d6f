"""Results as a notebook shows them: text as text, media as media (checked and bounded), never server HTML."""

from __future__ import annotations

import base64
import sys

import mcp_types as t
import pytest

from mcp_widgets.client.results import MAX_MEDIA_BYTES, result_bundles, result_text

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
HOSTILE = "<img src=x onerror=alert(1)>"


def text(value: str) -> t.TextContent:
    return t.TextContent(type="text", text=value)


def test_text_structured_content_and_errors_read_as_text() -> None:
    result = t.CallToolResult(
        content=[text("line one\nline two")], structured_content={"city": "Oslo", "n": 2}, is_error=True
    )
    assert result_text(result).splitlines() == [
        "Error: the tool reported a failure",
        "line one",
        "line two",
        "Structured content:",
        "{",
        '  "city": "Oslo",',
        '  "n": 2',
        "}",
    ]
    assert result_bundles(result) == [{"text/plain": result_text(result)}]


def test_server_text_is_never_markup_nor_terminal_control() -> None:
    result = t.CallToolResult(content=[text(f"{HOSTILE} \x1b[2J\x1b]0;title\x07 \u202eevil")])
    bundles = result_bundles(result)
    assert [list(b) for b in bundles] == [["text/plain"]]  # no HTML for server text
    shown = bundles[0]["text/plain"]
    assert HOSTILE in shown  # as literal text
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown


def test_images_are_shown_when_allowed_and_small_else_described() -> None:
    big = base64.b64encode(b"\0" * (MAX_MEDIA_BYTES + 1)).decode()
    result = t.CallToolResult(
        content=[
            text("before"),
            t.ImageContent(type="image", data=PNG, mime_type="image/png"),
            t.ImageContent(type="image", data=PNG, mime_type="image/svg+xml"),
            t.ImageContent(type="image", data=big, mime_type="image/jpeg"),
            t.ImageContent(type="image", data="not base64!", mime_type="image/png"),
            text("after"),
        ]
    )
    bundles = result_bundles(result)
    assert bundles[0] == {"text/plain": "before"}
    assert bundles[1] == {"text/plain": "[image: image/png, 72 B]", "image/png": PNG}
    rest = bundles[2]["text/plain"].splitlines()
    assert rest[0].startswith("[image: image/svg+xml, 72 B] (not shown: only ")
    assert rest[1] == "[image: image/jpeg, 5.0 MB] (not shown: over 5.0 MB)"
    assert rest[2] == "[image: image/png, not valid base64: not shown]"
    assert rest[3] == "after"
    assert len(bundles) == 3


def test_audio_gets_a_player_of_ours_and_links_and_resources_are_listed() -> None:
    wav = base64.b64encode(b"RIFF0000WAVE").decode()
    result = t.CallToolResult(
        content=[
            t.AudioContent(type="audio", data=wav, mime_type="audio/wav"),
            t.ResourceLink(
                type="resource_link", name="report", uri="file:///r.pdf", mime_type="application/pdf"
            ),
            t.EmbeddedResource(
                type="resource",
                resource=t.TextResourceContents(uri="note://1", mime_type="text/plain", text="hi"),
            ),
        ]
    )
    bundles = result_bundles(result)
    assert bundles[0]["text/html"] == f'<audio controls src="data:audio/wav;base64,{wav}"></audio>'
    assert bundles[1]["text/plain"].splitlines() == [
        "Resource link: report — file:///r.pdf (application/pdf)",
        "Embedded resource: note://1 (text/plain)",
        "hi",
    ]


def test_prompts_and_resources_read_too() -> None:
    prompt = t.GetPromptResult(
        description="Greets", messages=[t.PromptMessage(role="user", content=text("Greet Ada"))]
    )
    assert result_text(prompt).splitlines() == ["Greets", "1 message:", "[user]", "Greet Ada"]
    resource = t.ReadResourceResult(contents=[t.TextResourceContents(uri="demo://motto", text="ask")])
    assert result_text(resource).splitlines() == ["Resource: demo://motto", "ask"]


@pytest.mark.kernel
def test_a_notebook_shows_the_parts_and_returns_the_sdk_object() -> None:
    from kernel.harness import KernelFrontend

    code = (
        "import base64, mcp_types as t\n"
        "from mcp_widgets.client.results import show_results\n"
        "show_results()\n"
        f"r = t.CallToolResult(content=[t.TextContent(type='text', text='hello'), "
        f"t.ImageContent(type='image', data={PNG!r}, mime_type='image/png')])\n"
        "r"
    )
    with KernelFrontend(sys.executable) as fe:
        cell = fe.run(code, timeout=60)
        assert cell.status == "ok", cell.traceback
        assert cell.results == [
            {"text/plain": "hello"},
            {"text/plain": "[image: image/png, 72 B]", "image/png": PNG},
        ]
        again = fe.run("print(type(r).__name__)")
        assert again.stdout == "CallToolResult\n"  # the SDK's object, unwrapped


def test_a_text_block_repeating_the_structured_content_is_shown_once() -> None:
    result = t.CallToolResult(
        content=[text('{\n  "done": true\n}'), text("and a note")], structured_content={"done": True}
    )
    assert result_text(result).splitlines() == [
        "and a note",
        "Structured content:",
        "{",
        '  "done": true',
        "}",
    ]


def _pictures() -> object:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("pictures")

    @server.tool(description="A line of text and a picture.")
    async def picture() -> t.CallToolResult:
        return t.CallToolResult(
            content=[text("a dot"), t.ImageContent(type="image", data=PNG, mime_type="image/png")]
        )

    return server


def test_a_background_calls_images_show_as_when_awaited() -> None:
    # In a call's output= (a tool form's result area is one): the image renders under the closing text, as
    # the awaited result shows it, not as an "[image: …]" line.
    import concurrent.futures
    import contextlib
    import time

    import ipywidgets as w

    from mcp_widgets import connect_sync, kernel

    out = w.Output()
    with connect_sync(_pictures(), name="pictures") as srv:
        call = srv.call_tool_background("picture", output=out)
        end = time.monotonic() + 20
        while not any("image/png" in (o.get("data") or {}) for o in out.outputs):
            assert time.monotonic() < end, out.outputs
            with contextlib.suppress(TimeoutError):  # plain python: a wait runs what the client posts
                kernel.wait_sync(concurrent.futures.Future(), timeout=0.05)
        assert call.done()
        status, image = out.outputs
        assert status["data"]["text/plain"].splitlines() == ["tool 'picture' on 'pictures': done", "a dot"]
        assert image["data"] == {"text/plain": "[image: image/png, 72 B]", "image/png": PNG}
