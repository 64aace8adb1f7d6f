"""The URL card in a real JupyterLab: the URL is text, nothing is fetched or opened before consent, and one
click on "Open page" consents and opens the checked URL in a new tab without opener or referrer (the link
that appears instead where the page was not told the URL does the same). The card is one anywidget model,
drawn by the question card's renderer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .gallery import layout_problems
from .harness import UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]

HOST = "auth.example.test"  # .test never resolves; every request to it is answered by the test's route
HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
HOSTILE_URL = f'https://{HOST}/"><img/src=x/onerror=window.__pwned=3>?q=<script>window.__pwned=4</script>'
PLAIN_URL = f"https://{HOST}/connect?state=abc#top"

IMPORT_CELL = "from mcp_widgets.widgets._url_card import UrlCard"
CARD = 1
CARD_CELL = """\
card = UrlCard({message!r}, {url!r}, server="demo-server")
display(card)
result = await card.wait()
print(result.model_dump_json(exclude_none=True))
"""


class Traffic:
    """Every request to HOST and every new tab, from the moment the notebook opens."""

    def __init__(self, context: Any) -> None:
        self.requests: list[dict[str, Any]] = []
        self.tabs: list[Any] = []
        context.route(f"https://{HOST}/**", self._answer)
        context.on("page", lambda page: self.tabs.append(page))

    def _answer(self, route: Any) -> None:
        request = route.request
        self.requests.append({"url": request.url, "headers": dict(request.headers)})
        route.fulfill(status=200, content_type="text/html", body="<title>signed in</title>ok")


def show_card(open_notebook: OpenNotebook, url: str, message: str) -> tuple[NotebookPage, Traffic]:
    from playwright.sync_api import expect

    nb = open_notebook([IMPORT_CELL, CARD_CELL.format(message=message, url=url)])
    traffic = Traffic(nb.page.context)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(CARD)
    expect(nb.output(CARD).get_by_text("Request from demo-server", exact=False).first).to_be_visible()
    return nb, traffic


def armed(out: Any) -> None:
    """Wait until the card's helper view has the URL (a click sooner only consents, and shows the link)."""
    from playwright.sync_api import expect

    expect(out.locator(".mcp-widgets-url[data-mcp-widgets-open]")).to_have_count(1)


def not_pwned(nb: NotebookPage) -> None:
    assert nb.page.evaluate("typeof window.__pwned") == "undefined"
    assert nb.output(CARD).locator("img, script").count() == 0


def assert_opened_safely(nb: NotebookPage, traffic: Traffic, tab: Any, url: str) -> None:
    """`tab` is the page at exactly `url`, without an opener or a referrer; the notebook went nowhere."""
    tab.wait_for_load_state()
    href = nb.page.evaluate("(url) => new URL(url).href", url)  # as the browser writes it (percent-encoded)
    assert tab.url == href
    assert tab.evaluate("window.opener") is None
    assert [r["url"] for r in traffic.requests] == [href.split("#")[0]]  # a fragment is never sent
    assert "referer" not in traffic.requests[0]["headers"]
    assert nb.page.url != url


def test_nothing_is_fetched_before_consent_and_open_page_opens_it_in_the_same_click(
    open_notebook: OpenNotebook, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    nb, traffic = show_card(open_notebook, HOSTILE_URL, "Sign in " + HOSTILE)
    out = nb.output(CARD)
    nb.page.mouse.move(0, 0)  # no hover effects in the picture
    assert layout_problems(out) == []  # nothing overflows, no button label cut
    out.screenshot(path=str(screenshots / "url-card.png"))  # for docs/url-mode.md
    expect(out.get_by_text("Sign in " + HOSTILE, exact=True)).to_be_visible()
    expect(out.get_by_text(f"Opens a page on: {HOST}", exact=True)).to_be_visible()
    expect(out.get_by_text(f"Full address: {HOSTILE_URL}", exact=True)).to_be_visible()
    expect(out.locator("a")).to_have_count(0)  # no live link before consent
    not_pwned(nb)
    nb.page.wait_for_timeout(500)  # give a prefetch, if anything tried one, the time to happen
    assert traffic.requests == [] and len(nb.page.context.pages) == 1

    # One click: the consent reaches the kernel and the page opens in a new tab, at exactly the checked URL.
    armed(out)
    with nb.page.context.expect_page() as opened:
        out.get_by_role("button", name="Open page").click()
    nb.wait_done(CARD)
    assert json.loads(nb.stdout(CARD).inner_text()) == {"action": "accept"}
    assert_opened_safely(nb, traffic, opened.value, HOSTILE_URL)
    expect(
        out.get_by_text(f"The page on {HOST} opened in a new tab. Waiting for you to finish there")
    ).to_be_visible()
    expect(out.locator("a")).to_have_count(0)  # opened already: no link to click as well
    not_pwned(nb)
    assert len(nb.page.context.pages) == 2

    out.get_by_role("button", name="Done").click()
    expect(out.locator(".mcp-widgets-url .mcp-widgets-line")).to_have_text(
        [f"Request from demo-server to open a page on {HOST}: accepted by the person"]
    )
    expect(out.locator("a, button")).to_have_count(0)


# A card whose page is never told the URL: as a click before the URL reached the page (or a front end where
# the card's own opening does not run). The click then only consents, and the card shows its one live link.
NOT_TOLD_CELL = """card = UrlCard({message!r}, {url!r}, server="demo-server")
card._arm = lambda: None  # the page is never sent the URL to open
display(card)
result = await card.wait()
print(result.model_dump_json(exclude_none=True))
"""


def test_a_page_not_told_the_url_only_consents_and_reveals_the_link(
    open_notebook: OpenNotebook,
) -> None:
    from playwright.sync_api import expect

    nb = open_notebook([IMPORT_CELL, NOT_TOLD_CELL.format(message="Please sign in.", url=PLAIN_URL)])
    traffic = Traffic(nb.page.context)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(CARD)
    out = nb.output(CARD)
    out.get_by_role("button", name="Open page").click()
    nb.wait_done(CARD)
    assert json.loads(nb.stdout(CARD).inner_text()) == {"action": "accept"}
    nb.page.wait_for_timeout(500)
    assert traffic.requests == [] and len(nb.page.context.pages) == 1  # consent alone opened nothing
    expect(out.get_by_text("Open the page with the link above and finish there", exact=False)).to_be_visible()
    link = out.get_by_role("link", name=f"Open the page on {HOST} in a new tab ↗")
    assert link.get_attribute("href") == PLAIN_URL
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("rel") == "noopener noreferrer"
    with nb.page.context.expect_page() as opened:
        link.click()
    assert_opened_safely(nb, traffic, opened.value, PLAIN_URL)
    assert layout_problems(out) == []


SHOWN_CELL = """card = UrlCard("Please sign in.", {url!r}, server="demo-server", elicitation_id="e1")
display(card)
"""


def test_once_the_request_ended_its_button_is_disabled_and_opens_nothing(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    ended = 'card.finish("cancel", reason="policy", by="test", note="the request ended")'
    nb = open_notebook([IMPORT_CELL, SHOWN_CELL.format(url=PLAIN_URL), ended])
    traffic = Traffic(nb.page.context)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(CARD)
    out = nb.output(CARD)
    button = out.get_by_role("button", name="Open page")
    expect(button).to_be_enabled()
    held = button.element_handle()  # the element a late click would land on
    nb.run(2)
    expect(out.locator(".mcp-widgets-url .mcp-widgets-line")).to_contain_text(["cancelled by policy 'test'"])
    assert held.evaluate("(b) => b.disabled") is True
    held.evaluate("(b) => { b.disabled = false; b.click(); }")  # even a click that gets through: refused
    nb.page.wait_for_timeout(500)
    assert traffic.requests == [] and len(nb.page.context.pages) == 1


def test_the_card_in_each_state_light_and_dark(open_notebook: OpenNotebook) -> None:
    """No cut label, nothing overflowing: pending, opened and waiting, the retry round, and its end."""
    from playwright.sync_api import expect

    from .gallery import shoot_in_both_themes

    nb = open_notebook([IMPORT_CELL, SHOWN_CELL.format(url=PLAIN_URL), "card.ask_again()", "card.complete()"])
    Traffic(nb.page.context)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(CARD)
    out = nb.output(CARD)
    expect(out.get_by_role("button", name="Open page")).to_be_visible()
    shoot_in_both_themes(nb, {"url-card-pending": out}, end_light=False)
    armed(out)
    with nb.page.context.expect_page() as opened:
        out.get_by_role("button", name="Open page").click()
    # The person comes back to the notebook's tab (left behind the new one, the page is a background tab:
    # each theme change and shot then waited on its throttled timers, 15 s a state).
    opened.value.close()
    nb.page.bring_to_front()
    expect(out.get_by_role("button", name="Done")).to_be_visible()
    shoot_in_both_themes(nb, {"url-card-opened": out}, end_light=False)
    nb.run(2)
    expect(out.get_by_role("button", name="I've finished — try again")).to_be_visible()
    expect(out.get_by_text("it opened in a new tab), click", exact=False)).to_be_visible()
    shoot_in_both_themes(nb, {"url-card-again": out}, end_light=False)
    nb.run(3)
    expect(out.locator("button")).to_have_count(0)
    shoot_in_both_themes(nb, {"url-card-ended": out})


def test_a_refused_url_is_one_line_and_never_a_link(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb, traffic = show_card(open_notebook, "javascript:window.__pwned=5", "Click me")
    out = nb.output(CARD)
    nb.wait_done(CARD)
    assert json.loads(nb.stdout(CARD).inner_text()) == {"action": "decline"}
    expect(out.locator(".mcp-widgets-url .mcp-widgets-line")).to_have_count(1)
    expect(out.locator(".mcp-widgets-url .mcp-widgets-line")).to_contain_text(
        "declined: the URL is not safe to open"
    )
    expect(out.locator("a, button")).to_have_count(0)
    not_pwned(nb)
    assert traffic.requests == []


DEMO_CELLS = [
    "import mcp_widgets as mw\nfrom mcp_widgets.demo import create_server\n"
    'srv = await mw.connect(create_server(sign_in_port=0), name="demo", mode="legacy")',
    'r = await srv.call_tool("sign_in")\nprint(r.structured_content)',
]


def test_the_demo_sign_in_in_one_click_then_the_page_finishes_it(open_notebook: OpenNotebook) -> None:
    """The demo server's URL-mode tool (2025-11-25): Open page opens its local page in a new tab; signing in
    there ends the card through the server's completion notification, and the call returns."""
    from playwright.sync_api import expect

    nb = open_notebook(DEMO_CELLS)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(1)
    out = nb.output(1)
    shown = out.get_by_text("Full address: ", exact=False)
    expect(shown).to_be_visible()
    url = shown.inner_text().removeprefix("Full address: ")
    armed(out)
    with nb.page.context.expect_page() as opened:
        out.get_by_role("button", name="Open page").click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == url and tab.evaluate("window.opener") is None
    waiting = out.get_by_text("opened in a new tab. Waiting for you to finish there", exact=False)
    expect(waiting).to_be_visible()
    tab.get_by_role("button", name="Sign in as demo-user").click()
    expect(tab.get_by_text("Signed in.", exact=False)).to_be_visible()
    tab.close()  # and back to the notebook's tab (a background tab's timers are throttled)
    nb.page.bring_to_front()
    nb.wait_done(1, timeout=UI_MS * 2)
    assert nb.stdout(1).inner_text().strip() == "{'done': True, 'user': 'demo-user'}"
    ended = out.get_by_text("accepted by the person; the server reported it finished", exact=False)
    expect(ended).to_be_visible()
