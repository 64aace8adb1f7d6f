"""The URL card in a real JupyterLab: the URL is text, nothing is fetched or opened before consent, and the
one link that appears after consent opens a new tab without opener or referrer."""

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


def not_pwned(nb: NotebookPage) -> None:
    assert nb.page.evaluate("typeof window.__pwned") == "undefined"
    assert nb.output(CARD).locator("img, script").count() == 0


def test_the_url_is_text_and_nothing_is_fetched_or_opened_before_consent(
    open_notebook: OpenNotebook, screenshots: Path
) -> None:
    from playwright.sync_api import expect

    nb, traffic = show_card(open_notebook, HOSTILE_URL, "Sign in " + HOSTILE)
    out = nb.output(CARD)
    nb.page.mouse.move(0, 0)  # no hover effects in the picture
    assert layout_problems(out) == []  # nothing overflows, no button label cut
    out.screenshot(path=str(screenshots / "url-card.png"))  # for the README
    expect(out.get_by_text("Sign in " + HOSTILE, exact=True)).to_be_visible()
    expect(out.get_by_text(f"Opens a page on: {HOST}", exact=True)).to_be_visible()
    expect(out.get_by_text(f"Full address: {HOSTILE_URL}", exact=True)).to_be_visible()
    expect(out.locator("a")).to_have_count(0)  # no live link before consent
    not_pwned(nb)
    nb.page.wait_for_timeout(500)  # give a prefetch, if anything tried one, the time to happen
    assert traffic.requests == [] and len(nb.page.context.pages) == 1

    out.get_by_role("button", name="Open page").click()
    nb.wait_done(CARD)
    assert json.loads(nb.stdout(CARD).inner_text()) == {"action": "accept"}
    link = out.locator("a")
    expect(link).to_have_count(1)
    assert link.get_attribute("href") == HOSTILE_URL
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("rel") == "noopener noreferrer"
    expect(out.get_by_text("Waiting for demo-server to finish", exact=False)).to_be_visible()
    not_pwned(nb)
    assert traffic.requests == []  # consent alone opens nothing: the person clicks the link


def test_the_link_opens_a_new_tab_without_opener_or_referrer_and_done_hides_it(
    open_notebook: OpenNotebook,
) -> None:
    from playwright.sync_api import expect

    nb, traffic = show_card(open_notebook, PLAIN_URL, "Please sign in.")
    out = nb.output(CARD)
    out.get_by_role("button", name="Open page").click()
    nb.wait_done(CARD)
    link = out.get_by_role("link", name=f"Open the page on {HOST} in a new tab ↗")
    with nb.page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == PLAIN_URL
    assert tab.evaluate("window.opener") is None
    assert len(traffic.requests) == 1
    assert "referer" not in traffic.requests[0]["headers"]
    assert nb.page.url != PLAIN_URL  # the notebook itself went nowhere

    out.get_by_role("button", name="Done").click()
    expect(out.locator(".mcp-widgets-url .widget-label")).to_have_text(
        [f"Request from demo-server to open a page on {HOST}: accepted by the person"]
    )
    expect(out.locator("a, button")).to_have_count(0)


def test_a_refused_url_is_one_line_and_never_a_link(open_notebook: OpenNotebook) -> None:
    from playwright.sync_api import expect

    nb, traffic = show_card(open_notebook, "javascript:window.__pwned=5", "Click me")
    out = nb.output(CARD)
    nb.wait_done(CARD)
    assert json.loads(nb.stdout(CARD).inner_text()) == {"action": "decline"}
    expect(out.locator(".mcp-widgets-url .widget-label")).to_have_count(1)
    expect(out.locator(".mcp-widgets-url .widget-label")).to_contain_text(
        "declined: the URL is not safe to open"
    )
    expect(out.locator("a, button")).to_have_count(0)
    not_pwned(nb)
    assert traffic.requests == []
