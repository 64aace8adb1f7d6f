"""A tool's result as a person sees it in JupyterLab: its text as text, its image as an image, nothing from
the server as markup."""

from __future__ import annotations

import pytest

from .conftest import OpenNotebook
from .gallery import shoot

pytestmark = pytest.mark.browser

SERVER = """\
import base64, struct, zlib
import mcp_types as t
import mcp_widgets as mw
from mcp.server.mcpserver import MCPServer

def png(width, height, rgb):
    row = b"\\x00" + bytes(rgb) * width
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(row * height))
            + chunk(b"IEND", b""))

pics = MCPServer("pics")

@pics.tool(description="A picture and a caption.")
def picture() -> list:
    data = base64.b64encode(png(48, 24, (200, 30, 30))).decode()
    return [t.TextContent(type="text", text="A red band <b>not bold</b> $x$"),
            t.ImageContent(type="image", data=data, mime_type="image/png")]

srv = await mw.connect(pics, name="pics")
"""


def test_a_result_with_an_image(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([SERVER, "await srv.call_tool('picture')"])
    for index in (0, 1):
        nb.run(index)
        nb.wait_done(index, timeout=60_000)
    out = nb.output(1)
    expect(out.get_by_text("A red band <b>not bold</b> $x$", exact=True)).to_be_visible()
    expect(out.locator("b")).to_have_count(0)
    image = out.locator("img")
    expect(image).to_have_count(1)
    assert image.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [48, 24]
    expect(out.get_by_text("[image: image/png,", exact=False)).to_have_count(0)  # the image, not its line
    shoot(nb, nb.cell(1).locator(".jp-Cell-outputArea"), "result")


def test_a_background_calls_image_shows_in_its_cell(open_notebook: OpenNotebook) -> None:
    # The call ends after its cell finished: its image still renders there, as the awaited one does (it
    # was an "[image: …]" line under the call's status line).
    from playwright.sync_api import expect

    slow = SERVER.replace(
        "def picture() -> list:\n",
        "async def picture() -> list:\n    import asyncio\n    await asyncio.sleep(1.5)\n",
    )
    nb = open_notebook([slow, "call = srv.call_tool_background('picture')"])
    for index in (0, 1):
        nb.run(index)
        nb.wait_done(index, timeout=60_000)
    out = nb.output(1)
    expect(out.get_by_text("tool 'picture' on 'pics': done", exact=False)).to_be_visible()
    image = out.locator("img")
    expect(image).to_have_count(1)
    assert image.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [48, 24]
    expect(out.get_by_text("A red band <b>not bold</b> $x$", exact=False)).to_be_visible()
    expect(out.get_by_text("[image: image/png,", exact=False)).to_have_count(0)


def test_a_tool_forms_text_and_image_show_in_the_servers_order(open_notebook: OpenNotebook) -> None:
    # "The image above ..." came above the image: the images were moved under all the text.
    from playwright.sync_api import expect

    captioned = SERVER.replace(
        '            t.ImageContent(type="image", data=data, mime_type="image/png")]',
        '            t.ImageContent(type="image", data=data, mime_type="image/png"),\n'
        '            t.TextContent(type="text", text="The image above is a red band.")]',
    )
    nb = open_notebook([captioned, 'srv.form("picture")'])
    for index in (0, 1):
        nb.run(index)
        nb.wait_done(index, timeout=60_000)
    form = nb.output(1).locator(".mcp-widgets-tool-form")
    form.get_by_role("button", name="Run").click()
    after = form.get_by_text("The image above is a red band.", exact=False)
    expect(after).to_be_visible()
    before = form.get_by_text("A red band <b>not bold</b> $x$", exact=False)
    image = form.locator("img")
    expect(image).to_have_count(1)
    tops = [box["y"] for box in (before.bounding_box(), image.bounding_box(), after.bounding_box()) if box]
    assert len(tops) == 3 and tops == sorted(tops), tops
