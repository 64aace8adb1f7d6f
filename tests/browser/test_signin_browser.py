"""Signing in from a real JupyterLab to the real-peer rig (tests/servers/oauth): the person runs
`await mw.connect(url)` in a cell, reads the sign-in card (who asks, the authorization server's host, the
scopes), clicks Sign in, signs in on the provider's page in the new tab with a user name and password, is sent
back to the kernel's loopback ("you may close this tab"), answers the form the tool asks next, and the cell
ends with the tool's result. The saved notebook holds no token and no code. Then JupyterLab on another
machine: the browser cannot reach the loopback, and the person pastes the address it ended on into the
card's password field; the saved widget state never holds it.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers.launch import serving
from tests.servers.oauth.rig import PASSWORD, USER, authorization_server, protected_server
from tests.servers.oauth_quick import CANARY_PREFIX

from .gallery import layout_problems, shoot_in_both_themes
from .harness import ROOT, UI_MS, NotebookPage

pytestmark = pytest.mark.browser

OpenNotebook = Callable[..., NotebookPage]
CALL = 1
CELLS = (
    "import mcp_widgets as mw",
    'srv = await mw.connect({url!r}, name="notes", token_store="file")\nawait srv.call_tool("ask_name")',
    "srv.close()",
)


@pytest.fixture(scope="module")
def rig() -> Iterator[tuple[str, str]]:
    with authorization_server() as issuer, protected_server(issuer) as url:
        yield issuer, url


def secrets_in(data_dir: Path) -> list[str]:
    """Every access and refresh token the file store holds (the canaries)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("access_token", "refresh_token") and isinstance(item, str):
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and value.startswith(("{", "[")):
            with contextlib.suppress(ValueError):
                walk(json.loads(value))

    for path in data_dir.rglob("*.json"):
        try:
            walk(json.loads(path.read_text()))
        except (ValueError, OSError):
            continue
    return found


def test_sign_in_on_the_providers_page_then_answer_the_form(
    open_notebook: OpenNotebook, rig: tuple[str, str]
) -> None:
    from playwright.sync_api import expect

    _issuer, url = rig
    nb = open_notebook([cell.format(url=url) for cell in CELLS])
    to_issuer: list[str] = []  # what the browser asked of the authorization server
    nb.page.context.on("request", lambda r: to_issuer.append(r.url) if r.url.startswith(_issuer) else None)
    nb.run(0)
    nb.wait_done(0, timeout=UI_MS * 4)
    nb.run(CALL)
    out = nb.output(CALL)
    card = out.locator(".mcp-widgets-signin")
    expect(card).to_be_visible(timeout=UI_MS * 2)
    expect(card.get_by_text("You sign in on: 127.0.0.1", exact=True)).to_be_visible()
    expect(card.get_by_text("Sign-in requested by", exact=False).first).to_be_visible()
    expect(card.get_by_text("mcp:read", exact=False).first).to_be_visible()
    expect(card.get_by_text("Full address: http://127.0.0.1:", exact=False)).to_be_visible()
    expect(card.locator("a")).to_have_count(0)  # no live link before consent
    assert len(nb.page.context.pages) == 1 and to_issuer == []  # nothing opened or fetched before consent
    assert layout_problems(card) == []
    shoot_in_both_themes(nb, {"signin-card": card})  # build/gallery/signin-card-{light,dark}.png

    # One click consents and opens the provider's login page in a new tab.
    expect(out.locator(".mcp-widgets-signin[data-mcp-widgets-open]")).to_have_count(1)
    with nb.page.context.expect_page() as opened:
        card.get_by_role("button", name="Sign in").click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.startswith(_issuer + "/")
    tab.get_by_label("User name").fill(USER)
    tab.get_by_label("Password").fill(PASSWORD)
    tab.get_by_role("button", name="Sign in").click()
    tab.wait_for_url("http://127.0.0.1:*/callback?*", wait_until="load")
    expect(tab.locator("body")).to_contain_text("You may close this tab")
    code = [v for k, v in _query(tab.url) if k == "code"]
    assert code and len(code[0]) >= 16
    tab.close()
    nb.page.bring_to_front()

    # Back in the notebook: the tool's question, then its result.
    form = out.locator(".mcp-widgets-form")
    expect(form.get_by_label("Name")).to_be_visible(timeout=UI_MS * 2)
    form.get_by_label("Name").fill("Ada")
    form.get_by_role("button", name="Accept").click()
    nb.wait_done(CALL, timeout=UI_MS * 2)
    expect(out).to_contain_text('"subject": "ada"')
    expect(out).to_contain_text('"name": "Ada"')
    expect(card.get_by_role("button")).to_have_count(0)  # the card left one plain line

    # Canaries: the saved notebook holds no token and no code.
    nb.run(2)
    nb.wait_done(2)
    nb.run_command("docmanager:save")
    saved_path = nb.server.root / nb.path
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = saved_path.read_text()
    assert "Ada" in saved and "127.0.0.1" in saved  # the outputs were saved: the result, the card's line
    tokens = secrets_in(nb.server.base / "data")
    assert tokens, "the file store in the Jupyter data directory holds no token"
    for secret in [*tokens, code[0]]:
        assert secret not in saved
        assert secret not in nb.server.log_tail(10**7)


def _query(address: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl, urlsplit

    return parse_qsl(urlsplit(address).query)


@pytest.fixture(scope="module")
def quick() -> Iterator[str]:
    """An authorization server that approves at once (tests/servers/oauth_quick.py): codes are canaries."""
    with serving(
        [sys.executable, str(ROOT / "tests" / "servers" / "oauth_quick.py")], "the OAuth server"
    ) as (
        port,
        _,
    ):
        yield f"http://127.0.0.1:{port}/mcp"


def _saved_widget_state(nb: NotebookPage) -> str:
    from playwright.sync_api import expect

    nb.run_command("docmanager:save")  # resolves once the file is written
    expect(nb.page.locator(".jp-mod-dirty")).to_have_count(0, timeout=UI_MS)
    saved = json.loads((nb.server.root / nb.path).read_text())
    return json.dumps(saved.get("metadata", {}).get("widgets", {}))


@pytest.mark.usefixtures("saving_widget_state")
def test_pasting_the_address_the_browser_ended_on(open_notebook: OpenNotebook, quick: str) -> None:
    from playwright.sync_api import expect

    nb = open_notebook(
        [f"import mcp_widgets as mw\nsrv = await mw.connect({quick!r}, name='lab')\nprint('ok')"]
    )
    ended_on: list[str] = []

    def out_of_reach(route: Any) -> None:
        # The authorization server redirects to the kernel's loopback, which this browser cannot reach (as
        # from another machine): the tab ends on that address, and nothing arrives at the loopback.
        response = route.fetch(max_redirects=0)
        ended_on.append(response.headers["location"])
        route.fulfill(status=502, body="This site can't be reached")

    nb.page.context.route(re.compile(r"^http://127\.0\.0\.1:\d+/authorize\?"), out_of_reach)
    nb.run(0)
    out = nb.output(0)
    card = out.locator(".mcp-widgets-signin")
    expect(card.get_by_role("button", name="Sign in")).to_be_visible(timeout=UI_MS * 4)
    expect(card.locator("input")).to_have_count(0)  # nothing to paste before consent
    with nb.page.context.expect_page() as opened:
        card.get_by_role("button", name="Sign in").click()
    opened.value.wait_for_load_state()
    field = card.locator("input[type=password]")
    expect(field).to_be_visible()
    expect(
        card.get_by_text("Waiting for you to sign in on 127.0.0.1 in the new tab.", exact=False)
    ).to_be_visible()
    for _ in range(40):
        if ended_on:
            break
        nb.page.wait_for_timeout(250)
    (address,) = ended_on
    assert CANARY_PREFIX in address  # the code: what must never be kept
    opened.value.close()  # and back to the notebook's tab (a background tab's timers are throttled)
    nb.page.bring_to_front()
    assert layout_problems(card) == []
    shoot_in_both_themes(nb, {"signin-waiting": card})  # build/gallery/signin-waiting-{light,dark}.png
    field.fill(address.replace("state=", "state=x"))  # not this sign-in's: refused, the field stays
    assert CANARY_PREFIX not in _saved_widget_state(nb)  # typed, not sent: in the page only
    field.press("Enter")
    expect(card.get_by_text("A sign-in response was refused", exact=False)).to_be_visible()
    expect(field).to_have_value("")  # cleared as it was sent
    field.fill(address)
    card.get_by_role("button", name="Submit address").click()
    nb.wait_done(0, timeout=UI_MS * 4)
    expect(nb.stdout(0)).to_contain_text("ok")
    state = _saved_widget_state(nb)
    assert CANARY_PREFIX not in state and CANARY_PREFIX not in (nb.server.root / nb.path).read_text()
