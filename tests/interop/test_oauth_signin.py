"""Our client signs in to the real-peer rig (tests/servers/oauth) without a notebook: `connect(url)` meets the
protected server's 401, the sign-in card goes to a handler that consents, and a real Chromium (the person's
browser) follows `card.authorization_url`, types the test account into the provider's login page and is sent
back to the card's loopback. Also: a refresh with no card, a step-up, Cancel, a wrong `state`, the
pasted-address path, the file store across connections, and canaries (no token or code in the logs at DEBUG,
the history, or any card's repr).

The client runs on a thread of its own (`Person.run`): Playwright's sync API keeps the main thread's loop, and
the browser must act while the client waits for it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import os
import queue
import stat
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

import mcp_types as t
import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

import mcp_widgets as mw
from mcp_widgets import kernel
from mcp_widgets.core.history import default_history
from tests.servers.oauth.rig import Browser, authorization_server, protected_server

pytestmark = pytest.mark.browser  # its own Playwright: runs after the tests that start event loops

T = TypeVar("T")
SHORT_TTL = 3
WAIT = 60


class Store:
    """A token store with the SDK's `TokenStorage` protocol (a `token_store=` object): the test reads the
    secrets it holds, for the canaries."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.seen: list[str] = []
        """Every access and refresh token ever stored."""

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.seen += [s for s in (tokens.access_token, tokens.refresh_token) if s]

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class Person:
    """The handler: consents on every sign-in card (or cancels it), fills the name form with "Ada". The cards'
    authorization addresses arrive on `addresses` for the browser."""

    def __init__(self, *, sign_in: str = "accept") -> None:
        self.sign_in = sign_in
        self.cards: list[Any] = []
        self.addresses: queue.Queue[str] = queue.Queue()

    async def __call__(self, card: Any) -> None:
        self.cards.append(card)
        if card.kind == "form":
            card.fill(name="Ada")
            card.accept()
            return
        assert card.kind == "signin", card.kind
        if self.sign_in == "cancel":
            card.cancel()
            return
        card.accept()
        self.addresses.put(card.authorization_url)

    def paste(self, address: str) -> bool:
        """Paste `address` into the last sign-in card, on the thread that runs the cards (from any thread)."""
        card = self.signin_cards[-1]
        done: concurrent.futures.Future[bool] = concurrent.futures.Future()
        kernel.post(lambda: done.set_result(card.paste(address)))
        return done.result(timeout=WAIT)

    @property
    def signin_cards(self) -> list[Any]:
        return [c for c in self.cards if c.kind == "signin"]

    def run(self, work: Callable[[], T]) -> concurrent.futures.Future[T]:
        """`work()` on a thread of its own (the client's calling thread)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def target() -> None:
            try:
                future.set_result(work())
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=target, daemon=True).start()
        return future

    def next_address(self, running: concurrent.futures.Future[Any], timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                return self.addresses.get(timeout=0.1)
            except queue.Empty:
                if running.done():
                    running.result()
                    raise AssertionError("the call ended without a sign-in card to consent to") from None
        raise TimeoutError("no sign-in card was consented to")


def parse(result: t.CallToolResult) -> Any:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, t.TextContent)
    return json.loads(block.text)


class Captured(logging.Handler):
    """Every log record at DEBUG and up, formatted, from every logger."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(self.format(record))
        except Exception:
            self.lines.append(repr(record.__dict__))


@pytest.fixture
def logs() -> Iterator[Captured]:
    root = logging.getLogger()
    handler = Captured()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    old = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


def assert_no_secret(secrets: list[str], *places: tuple[str, str]) -> None:
    assert secrets and all(len(s) >= 16 for s in secrets)
    for name, text in places:
        for secret in secrets:
            assert secret not in text, f"a secret is in {name}"


def test_sign_in_then_a_form_in_one_call(mcp_url: str, browser: Browser, logs: Captured) -> None:
    person, store = Person(), Store()
    history = default_history()
    before = len(history.records(server="rig"))

    def work() -> tuple[Any, Any]:
        with mw.connect_sync(mcp_url, name="rig", handler=person, token_store=store) as srv:
            return parse(srv.call_tool_sync("ask_name")), srv

    running = person.run(work)
    address = person.next_address(running)
    card = person.signin_cards[0]
    assert card.auth_host == "127.0.0.1"
    assert card.authorization_url == address and address.startswith(f"{_origin_of_issuer(address)}/auth?")
    assert "mcp:read" in card.scopes
    assert card.redirect_uri.startswith("http://127.0.0.1:") and card.redirect_uri.endswith("/callback")
    landing = browser.sign_in(address, context=browser.fresh())
    assert landing.url.startswith(card.redirect_uri)
    assert "close this tab" in landing.text
    result, srv = running.result(timeout=WAIT)
    assert result["caller"]["subject"] == "ada"
    assert result["answer"] == {"action": "accept", "content": {"name": "Ada"}}
    assert [c.kind for c in person.cards] == ["signin", "form"]
    # One history record of the sign-in: the server, the authorization server's host, the scopes, accepted.
    signins = [r for r in history.records(server="rig")[before:] if r["mode"] == "signin"]
    assert len(signins) == 1
    assert signins[0]["url_host"] == "127.0.0.1"
    assert "mcp:read" in signins[0]["scopes"]
    assert signins[0]["outcome"]["action"] == "accept"
    # Canaries: no token and no code anywhere we write or show.
    code = landing.query["code"]
    secrets = [*store.seen, code]
    assert_no_secret(
        secrets,
        ("the logs", "\n".join(logs.lines)),
        ("the history", json.dumps(history.records(), default=str)),
        ("the cards' reprs", " ".join(repr(c) for c in person.cards)),
        ("the server's repr", repr(srv)),
    )


def _origin_of_issuer(address: str) -> str:
    parts = urlsplit(address)
    return f"{parts.scheme}://{parts.netloc}"


def test_step_up_shows_a_second_card_for_the_write_scope(mcp_url: str, browser: Browser) -> None:
    # The default store (memory, this process): no other test uses it.
    person = Person()
    context = browser.fresh()  # one browser session: the second authorization needs no password

    def work() -> tuple[Any, Any]:
        with mw.connect_sync(mcp_url, name="rig-step-up", handler=person) as srv:
            before = parse(srv.call_tool_sync("whoami"))
            return before, parse(srv.call_tool_sync("write_note", {"text": "hi"}))

    running = person.run(work)
    browser.sign_in(person.next_address(running), context=context)
    second = person.next_address(running)
    assert {"mcp:read", "mcp:write"} <= set(person.signin_cards[1].scopes)
    browser.sign_in(second, context=context)
    before, written = running.result(timeout=WAIT)
    assert before["scopes"] == ["mcp:read"]
    assert written["saved"] == "hi"
    assert "mcp:write" in written["caller"]["scopes"]


def test_expired_token_is_refreshed_with_no_card(browser: Browser) -> None:
    person, store = Person(), Store()
    with authorization_server(access_ttl=SHORT_TTL) as short, protected_server(short) as url:

        def work() -> tuple[Any, Any]:
            with mw.connect_sync(url, name="rig-refresh", handler=person, token_store=store) as srv:
                first = parse(srv.call_tool_sync("whoami"))
                time.sleep(SHORT_TTL + 1)  # waiting out the token's life, not timing anything
                return first, parse(srv.call_tool_sync("whoami"))

        running = person.run(work)
        browser.sign_in(person.next_address(running), context=browser.fresh())
        first, second = running.result(timeout=WAIT)
    assert first["subject"] == second["subject"] == "ada"
    assert len(person.signin_cards) == 1, "the refresh asked the person again"
    assert len({s for s in store.seen if s.count(".") == 2}) >= 2, "no new access token was issued"


def test_cancel_raises_and_records_it(mcp_url: str) -> None:
    person = Person(sign_in="cancel")

    def work() -> None:
        mw.connect_sync(mcp_url, name="rig-cancel", handler=person, token_store=Store()).close()

    with pytest.raises(mw.ConnectError, match="cancel"):
        person.run(work).result(timeout=WAIT)
    assert person.addresses.empty()
    records = [r for r in default_history().records(server="rig-cancel") if r["mode"] == "signin"]
    assert [r["outcome"]["action"] for r in records] == ["cancel"]


def test_no_ready_made_handler_or_headless_policy_signs_in(mcp_url: str) -> None:
    for handler in (mw.handlers.accept_defaults, None):  # None: plain python without a TTY is headless

        def work(handler: Any = handler) -> None:
            mw.connect_sync(mcp_url, name="rig-headless", handler=handler, token_store=Store()).close()

        with pytest.raises(mw.ConnectError, match="to sign in without a person"):
            Person().run(work).result(timeout=WAIT)
    records = [r for r in default_history().records(server="rig-headless") if r["mode"] == "signin"]
    assert len(records) == 2 and all(r["outcome"]["action"] != "accept" for r in records)


def test_denied_on_the_providers_page_ends_the_sign_in(mcp_url: str, browser: Browser) -> None:
    person = Person()

    def work() -> None:
        mw.connect_sync(mcp_url, name="rig-denied", handler=person, token_store=Store()).close()

    running = person.run(work)
    page = browser.fresh().new_page()
    try:
        page.goto(person.next_address(running))
        page.get_by_role("button", name="Cancel").click()  # the provider's Cancel: back with access_denied
        page.wait_for_url(lambda url: "error=access_denied" in url, wait_until="load")
        assert "does not belong" not in page.locator("body").inner_text()
        with pytest.raises(mw.ConnectError, match="access_denied"):
            running.result(timeout=WAIT)
        assert not person.signin_cards[0].waiting
        records = [r for r in default_history().records(server="rig-denied") if r["mode"] == "signin"]
        assert len(records) == 1 and records[0]["outcome"]["action"] != "accept"
    finally:
        if not running.done():  # end the call the sign-in card holds
            card = person.signin_cards[0]
            kernel.post(card.cancel)
            with contextlib.suppress(Exception):
                running.result(timeout=WAIT)
        page.close()


def test_a_wrong_state_is_refused_and_the_right_one_still_signs_in(mcp_url: str, browser: Browser) -> None:
    person = Person()

    def work() -> Any:
        with mw.connect_sync(mcp_url, name="rig-state", handler=person, token_store=Store()) as srv:
            return parse(srv.call_tool_sync("whoami"))

    running = person.run(work)
    address = person.next_address(running)
    card = person.signin_cards[0]
    forged = f"{card.redirect_uri}?{urlencode({'code': 'x' * 20, 'state': 'not-the-state', 'iss': 'x'})}"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forged, timeout=10)
    assert refused.value.code == 400
    assert "does not belong" in refused.value.read().decode()
    assert card.waiting
    landing = browser.sign_in(address, context=browser.fresh())
    assert "close this tab" in landing.text
    assert running.result(timeout=WAIT)["subject"] == "ada"


def test_pasted_address_when_the_loopback_is_out_of_reach(mcp_url: str, browser: Browser) -> None:
    person = Person()

    def work() -> Any:
        with mw.connect_sync(mcp_url, name="rig-paste", handler=person, token_store=Store()) as srv:
            return parse(srv.call_tool_sync("whoami"))

    running = person.run(work)
    address = person.next_address(running)
    card = person.signin_cards[0]
    redirect = urlsplit(card.redirect_uri)
    ended = browser.sign_in(
        address, context=browser.fresh(), unreachable=f"{redirect.scheme}://{redirect.netloc}"
    )
    query = parse_qs(urlsplit(ended.url).query)
    assert "code" in query
    assert not person.paste(ended.url.replace(query["state"][0], "not-the-state"))
    assert card.waiting
    assert person.paste(ended.url)
    assert running.result(timeout=WAIT)["subject"] == "ada"


def test_file_store_keeps_a_sign_in_across_connections(
    mcp_url: str, browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    first = Person()

    def work(person: Person) -> Callable[[], Any]:
        def go() -> Any:
            with mw.connect_sync(mcp_url, name="rig-file", handler=person, token_store="file") as srv:
                return parse(srv.call_tool_sync("whoami"))

        return go

    running = first.run(work(first))
    browser.sign_in(first.next_address(running), context=browser.fresh())
    assert running.result(timeout=WAIT)["subject"] == "ada"
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files, "the file store wrote nothing under JUPYTER_DATA_DIR"
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    again = Person(sign_in="cancel")  # a card now would end the call: none may come
    assert again.run(work(again)).result(timeout=WAIT)["subject"] == "ada"
    assert again.cards == []
    assert os.environ["JUPYTER_DATA_DIR"] == str(tmp_path)


def test_sign_out_forgets_the_file_store_entry_and_asks_again(
    mcp_url: str, browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    person = Person()

    def stored() -> str:
        return "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())

    def work() -> Any:
        with mw.connect_sync(mcp_url, name="rig-sign-out", handler=person, token_store="file") as srv:
            first = parse(srv.call_tool_sync("whoami"))
            assert '"access_token":' in stored()
            srv.sign_out()
            person.sign_in = "cancel"  # the next card: the person says no
            with pytest.raises(mw.MCPWidgetsError):
                srv.call_tool_sync("whoami")
            return first

    running = person.run(work)
    browser.sign_in(person.next_address(running), context=browser.fresh())
    assert running.result(timeout=WAIT)["subject"] == "ada"
    assert [c.kind for c in person.cards] == ["signin", "signin"]
    left = stored()
    assert left and '"access_token":' not in left and '"refresh_token":' not in left  # the client stays
