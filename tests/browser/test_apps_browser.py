"""MCP Apps in a real JupyterLab: a tool's app appears under its call, initializes, shows the result, calls
back a tool through the kernel, follows the theme and its own height, and reaches nothing of the page."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.servers import wandering_app

from .harness import DARK_THEME, LIGHT_THEME, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

CONNECT_DEMO = """\
import mcp_widgets as mw
from mcp_widgets.demo import create_server
srv = await mw.connect(create_server(sign_in_port=0), name="demo")
"""
ROLL = """\
result = await srv.call_tool("roll_dice", {"sides": 6, "count": 3})
print(result.structured_content["total"])
"""


def connected(open_notebook: OpenNotebook, *cells: str) -> NotebookPage:
    nb = open_notebook([CONNECT_DEMO, *cells])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    return nb


APP = "iframe.mcp-widgets-app-frame"
"""The frame of ours an app's own frame sits in (the sandbox proxy); the app's is the one iframe in it."""


def app_frame(nb: NotebookPage, index: int) -> Any:
    """The app's iframe in cell `index` (its content, as Playwright reaches into any origin)."""
    from playwright.sync_api import expect

    frame = nb.output(index).locator(APP)
    expect(frame).to_have_count(1, timeout=UI_MS * 2)
    return nb.output(index).frame_locator(APP).frame_locator("iframe")


def test_the_demo_app_shows_its_result_and_calls_back(open_notebook: OpenNotebook, screenshots: Path) -> None:
    from playwright.sync_api import expect

    nb = connected(open_notebook, ROLL)
    started = time.perf_counter()
    nb.run(1)
    nb.wait_done(1, timeout=UI_MS * 2)
    total = int(nb.stdout(1).inner_text().strip())
    out = nb.output(1)
    expect(out.get_by_text("App roll_dice from demo", exact=True)).to_be_visible()
    app = app_frame(nb, 1)
    expect(app.locator("#total")).to_have_text(f"3 × d6: total {total}", timeout=UI_MS * 2)
    print(f"[tool result to app painted {time.perf_counter() - started:.2f} s]", end=" ")
    expect(app.locator(".die")).to_have_count(3)

    # The app's height follows what it reports (not the 120 px start).
    frame = out.locator("iframe.mcp-widgets-app-frame")
    box = frame.bounding_box()
    assert box is not None and 40 <= box["height"] < 400, box

    # Its button calls the app-only tool through the kernel: a call of its own under the app.
    app.locator("#again").click()
    expect(out.get_by_text("reroll", exact=False).first).to_be_visible(timeout=UI_MS * 2)
    expect(app.locator("#status")).to_have_text("", timeout=UI_MS * 2)
    expect(app.locator(".die")).to_have_count(3)

    # Its file goes nowhere before the person says yes; then the browser saves it.
    app.locator("#save").click()
    offer = out.get_by_text("The app offers 1 file to save: rolls.csv (text/csv, ", exact=False)
    expect(offer).to_be_visible()
    with nb.page.expect_download() as saved:
        out.get_by_role("button", name="Save", exact=True).click()
    download = saved.value
    assert download.suggested_filename == "rolls.csv"
    assert Path(download.path()).read_text().startswith("roll,value\n1,")
    expect(app.locator("#status")).to_have_text("saved")
    expect(offer).to_have_count(0)

    nb.page.screenshot(path=str(screenshots / "app-light.png"))
    nb.set_theme(DARK_THEME)
    expect(app.locator("body")).to_have_class("dark", timeout=UI_MS * 2)
    nb.page.screenshot(path=str(screenshots / "app-dark.png"))
    nb.set_theme(LIGHT_THEME)
    expect(app.locator("body")).not_to_have_class("dark", timeout=UI_MS * 2)


NPM = Path(__file__).resolve().parents[1] / "interop" / "node_modules" / "@modelcontextprotocol"
EXAMPLES = ["server-basic-vanillajs", "server-basic-react"]
ISO_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


def example_server(package: str) -> str:
    """The cell that connects to one of the official example app servers (npm, pinned) over stdio."""
    from tests.interop.nodejs import node_or_skip

    entry = NPM / package / "dist" / "index.js"
    node = node_or_skip(entry)
    return (
        "import mcp_widgets as mw\n"
        f"srv = await mw.connect([{node!r}, {str(entry)!r}, '--stdio'], name='basic')\n"
    )


@pytest.mark.parametrize("package", EXAMPLES)
def test_an_official_example_app_runs_in_the_cell(open_notebook: OpenNotebook, package: str) -> None:
    """The ext-apps example servers (written by the spec's authors with their SDK): the app initializes
    through our bridge, shows the tool's result, calls the tool again, logs, sends a message, and asks to
    open a link, which waits for the person's click."""
    import re

    from playwright.sync_api import expect

    nb = open_notebook([example_server(package), 'await srv.call_tool("get-time")'])
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
    nb.run(1)
    nb.wait_done(1, timeout=UI_MS * 2)
    out = nb.output(1)
    expect(out.get_by_text("App get-time from basic", exact=True)).to_be_visible()
    app = app_frame(nb, 1)
    time_shown = app.get_by_text(re.compile(ISO_TIME)).first
    expect(time_shown).to_be_visible(timeout=UI_MS * 2)
    first = time_shown.inner_text()

    # Its own button: tools/call through the kernel, the answer shown by the app.
    nb.page.wait_for_timeout(1100)  # the server's clock moves on
    app.get_by_role("button", name="Get Server Time").click()
    expect(app.get_by_text(re.compile(ISO_TIME)).first).not_to_have_text(first, timeout=UI_MS * 2)
    expect(out.get_by_text("tool 'get-time' on 'basic': done", exact=False).first).to_be_visible()

    app.get_by_role("button", name="Send Log").click()
    expect(out.get_by_text("[info] app: This is log text.", exact=False)).to_be_visible()
    app.get_by_role("button", name="Send Message").click()
    expect(out.get_by_text("The app sent a message", exact=False)).to_be_visible()

    pages = len(nb.page.context.pages)
    app.get_by_role("button", name="Open Link").click()
    expect(out.get_by_text("The app asks to open this page.", exact=False)).to_be_visible()
    expect(out.get_by_text("Full address: https://modelcontextprotocol.io/", exact=False)).to_be_visible()
    nb.page.wait_for_timeout(500)
    assert len(nb.page.context.pages) == pages  # nothing opened before the click
    out.get_by_role("button", name="Decline").click()
    expect(out.get_by_role("button", name="Open page")).to_have_count(0)
    declined = "to open a page on modelcontextprotocol.io: declined by the person"
    expect(out.get_by_text(declined, exact=False)).to_be_visible()


HOSTILE_CONNECT = """\
import sys
sys.path.insert(0, {root!r})
import mcp_widgets as mw
from tests.servers.hostile_app import build_server
srv = await mw.connect(build_server(), name='<b>bold</b> $x^2$ \\x1b[31mred')
"""


def test_a_hostile_app_reaches_nothing_and_stays_bounded(open_notebook: OpenNotebook) -> None:
    """Our own hostile app: the page, its cookies and storage, the network, navigation, popups, tools
    outside its visibility, floods and malformed messages: each blocked or bounded, and all works on."""
    from playwright.sync_api import expect

    root = str(Path(__file__).resolve().parents[2])
    nb = open_notebook([HOSTILE_CONNECT.format(root=root), 'await srv.call_tool("hostile")', "print(1 + 1)"])
    requests: list[str] = []
    nb.page.context.route(
        "https://evil.example.test/**", lambda route: (requests.append(route.request.url), route.abort())
    )
    url = nb.page.url
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    started = time.perf_counter()
    nb.run(1)
    nb.wait_done(1, timeout=UI_MS * 2)
    out = nb.output(1)
    # The server's name is text: no bold element, no MathJax, no terminal colour.
    expect(out.get_by_text("App hostile from <b>bold</b> $x^2$", exact=False)).to_be_visible()
    expect(out.locator("b, mjx-container, .MathJax")).to_have_count(0)
    app = app_frame(nb, 1)
    try:
        expect(app.locator("#done")).to_have_text("done", timeout=UI_MS * 4)
    except AssertionError:
        print(app.locator("#probes").inner_text(), out.first.inner_text())
        raise
    print(f"[hostile app's probes, flood included {time.perf_counter() - started:.1f} s]", end=" ")
    probes = dict(line.split(": ", 1) for line in app.locator("#probes").inner_text().splitlines())
    print(probes, end=" ")
    for name in (
        "parent document",
        "top location",
        "cookies",
        "local storage",
        "undeclared fetch",
        "notebook server fetch",
        "top navigation",
        "window.open",
    ):
        assert probes[name] == "blocked", (name, probes[name])
    assert probes["model-only tool"] == "refused"
    assert probes["unknown tool"] == "refused"
    assert probes["oversized message"] == "refused"
    assert probes["malformed params"] == "refused -32602"
    answered, ran, refused = (int(part.split()[-1]) for part in probes["flood"].split(", "))
    assert answered == 10_000 and ran + refused == 10_000 and refused >= 9_000, probes["flood"]

    # Nothing left the page, which is where it was; the frame's height stayed bounded; lines are few.
    assert requests == [], requests
    assert nb.page.url == url
    box = out.locator("iframe.mcp-widgets-app-frame").bounding_box()
    assert box is not None and box["height"] <= 2000, box
    expect(out.get_by_text("Refused:", exact=False).first).to_be_visible()
    expect(out.get_by_text("Left out of the app's policy", exact=False)).to_be_visible()
    # The kernel is still usable.
    nb.run(2)
    nb.wait_done(2)
    expect(nb.stdout(2)).to_have_text("2")


WANDER_CONNECT = """\
import sys
sys.path.insert(0, {root!r})
import mcp_widgets as mw
from tests.servers import wandering_app
srv = await mw.connect(wandering_app.build_server({url!r}), name="wander")
"""
WAYS = ("href", "refresh", "link", "form", "form-post", "reload")
"""How the app takes its frame elsewhere (see tests/servers/wandering_app.py); reload reloads its own."""


class _Elsewhere(http.server.BaseHTTPRequestHandler):
    """The other origin: a page that would use the host's bridge and fetch, and a log of what it was asked."""

    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.asked.append(self.path)
        body = wandering_app.PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_an_app_cannot_take_its_frame_to_another_page(open_notebook: OpenNotebook) -> None:
    """An app takes its own frame to a page of another origin (the typed value in its query), each way a page
    can: the navigation is blocked (the other origin is never asked), the page there gets no bridge (the
    kernel never runs the tool it calls), and the app ends with a line saying why."""
    from playwright.sync_api import expect

    elsewhere = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    thread = threading.Thread(target=elsewhere.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{elsewhere.server_address[1]}/page"
        root = str(Path(__file__).resolve().parents[2])
        calls = [f'await srv.call_tool("wander", {{"how": "{how}", "typed": "typed-{how}"}})' for how in WAYS]
        check = "print(wandering_app.CALLED)"
        nb = open_notebook([WANDER_CONNECT.format(root=root, url=url), *calls, check])
        nb.run(0)
        nb.wait_done(0, timeout=UI_MS * 4)
        assert nb.stderr(0).count() == 0, nb.stderr(0).all_inner_texts()
        ended = "App wander from wander: ended (the app tried to navigate its own frame)"
        for index, _how in enumerate(WAYS, start=1):
            nb.run(index)
            nb.wait_done(index, timeout=UI_MS * 2)
            out = nb.output(index)
            expect(out.get_by_text(ended, exact=True)).to_be_visible(timeout=UI_MS * 2)
            expect(out.locator(APP)).to_be_hidden()
        nb.run(len(WAYS) + 1)
        nb.wait_done(len(WAYS) + 1)
        expect(nb.stdout(len(WAYS) + 1)).to_have_text("[]")
        assert _Elsewhere.asked == [], _Elsewhere.asked
    finally:
        elsewhere.shutdown()
        elsewhere.server_close()
        thread.join()


def test_the_app_runs_in_notebook_7(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    from .harness import NOTEBOOK

    nb = open_notebook([CONNECT_DEMO, ROLL], ui=NOTEBOOK)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(1)
    nb.wait_done(1, timeout=UI_MS * 2)
    total = int(nb.stdout(1).inner_text().strip())
    app = app_frame(nb, 1)
    expect(app.locator("#total")).to_have_text(f"3 × d6: total {total}", timeout=UI_MS * 2)
    app.locator("#again").click()
    expect(nb.output(1).get_by_text("tool 'reroll' on 'demo': done", exact=False)).to_be_visible()


VOILA_ROLL = """\
import ipywidgets as w
import mcp_widgets as mw
from mcp_widgets.demo import create_server

srv = await mw.connect(create_server(sign_in_port=0), name="demo")
out = w.Output()
button = w.Button(description="Roll")
button.on_click(lambda _: srv.call_tool_background("roll_dice", {"count": 2}, output=out))
display(button, out)
"""


def test_the_app_runs_in_voila_from_a_widget_callback(open_voila: Callable[..., Any]) -> None:
    """Voila runs the cells at page load; the person clicks a button whose callback calls the tool with an
    `output=`: the app appears in that output, live."""
    from playwright.sync_api import expect

    page = open_voila([VOILA_ROLL])
    page.page.get_by_role("button", name="Roll").click()
    frame = page.page.locator("iframe.mcp-widgets-app-frame")
    expect(frame).to_have_count(1, timeout=UI_MS * 2)
    app = page.page.frame_locator(APP).frame_locator("iframe")
    expect(app.locator(".die")).to_have_count(2, timeout=UI_MS * 2)
    app.locator("#again").click()
    expect(page.page.get_by_text("tool 'reroll' on 'demo': done", exact=False)).to_be_visible()
