"""Signing in to an OAuth-protected server: the sign-in card, the loopback, the pasted address, the stores.

A real MCP server with the SDK's server-side auth and its own authorization server
(tests/servers/oauth_quick.py, a subprocess; it approves at once and redirects with a code). No kernel here:
a handler stands in for the person on the card, and the test plays the browser (urllib, which follows the
redirect to the loopback).
Every code and token the server issues starts with CANARY_PREFIX, so each test also checks where it is not.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import stat
import subprocess
import sys
import textwrap
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import ipywidgets as w
import pytest
from ipywidgets.widgets.widget import _instances

import mcp_widgets as mw
from mcp_widgets import kernel as mw_kernel
from mcp_widgets.client.signin import tokens
from mcp_widgets.core.card import KINDS, Card
from mcp_widgets.core.history import default_history
from mcp_widgets.core.signin_addresses import HEADLESS_HELP, SignInError
from mcp_widgets.widgets import SignInCard
from tests.servers import ROOT
from tests.servers.launch import serving
from tests.servers.oauth_quick import CANARY_PREFIX

ROOT = ROOT
OAUTH_SERVER = ROOT / "tests" / "servers" / "oauth_quick.py"

pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving([sys.executable, str(OAUTH_SERVER)], "the OAuth test server") as (port, _proc):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def short_url() -> Iterator[str]:
    """The same server, with access tokens that live 3 seconds."""
    with serving([sys.executable, str(OAUTH_SERVER), "3"], "the OAuth test server") as (port, _proc):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(autouse=True)
def fresh_memory() -> Iterator[None]:
    """Each test signs in anew: the kernel's memory store starts empty."""
    tokens.MEMORY._data.clear()
    yield
    tokens.MEMORY._data.clear()


def browse(address: str) -> tuple[int, str]:
    """The person's browser: open `address`, follow redirects; the status and the text of the last page."""
    try:
        with urllib.request.urlopen(address, timeout=10) as page:
            return page.status, page.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def ended_on(address: str) -> str:
    """Where the authorization server sends the browser (its redirect), without going there."""

    class Stop(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    try:
        urllib.request.build_opener(Stop).open(address, timeout=10)
    except urllib.error.HTTPError as exc:
        return str(exc.headers["Location"])
    raise AssertionError("the authorization server did not redirect")


def consent_then(
    then: Callable[[SignInCard], Any] | None = None, seen: list[SignInCard] | None = None
) -> Any:
    """A handler that clicks Sign in, then does `then(card)` on a thread (default: the browser follows)."""

    async def handler(card: Any) -> None:
        assert card.kind == "signin"
        if seen is not None:
            seen.append(card)
        assert card.accept()
        act = then or (lambda c: browse(c.authorization_url))
        threading.Thread(target=act, args=(card,), daemon=True).start()

    return handler


def read_back(pages: list[tuple[int, str]], n: int) -> list[tuple[int, str]]:
    """The browser thread's `n` pages: the sign-in may end before the browser has read the last one."""
    deadline = time.monotonic() + 10
    while len(pages) < n and time.monotonic() < deadline:
        time.sleep(0.02)
    return pages


def connect_fails(url: str, **options: Any) -> None:
    async def go() -> None:
        await mw.connect(url, name="lab", **options)

    asyncio.run(go())


def no_canary(*texts: object) -> None:
    for text in texts:
        assert CANARY_PREFIX not in str(text)


def model_states() -> list[dict[str, Any]]:
    return [widget.get_state() for widget in list(_instances.values()) if isinstance(widget, w.Widget)]


def signins() -> list[dict[str, Any]]:
    return [r for r in default_history().records() if r["mode"] == "signin"]


def test_sign_in_through_the_card_then_call(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # the SDK's, httpx's and ours: none may carry a code or token
    seen: list[SignInCard] = []

    async def main() -> str:
        async with mw.connect(url, handler=consent_then(seen=seen), name="lab") as srv:
            result = await srv.call_tool("whoami")
            no_canary(repr(srv), model_states())
            return str(result.content[0].text)

    assert asyncio.run(main()) == "read"
    (card,) = seen
    assert isinstance(card, Card) and card.kind in KINDS  # handlers get it through the card contract
    assert card.auth_host == "127.0.0.1" and card.scopes == ("read",)
    assert card.redirect_uri.startswith("http://127.0.0.1:") and card.redirect_uri.endswith("/callback")
    assert card.redirect_uri in card.authorization_url.replace("%3A", ":").replace("%2F", "/")
    assert card.signin_state == "signed in"
    assert "signed in" in card.closing_line  # one closing line is all it keeps
    record = signins()[0]
    assert (record["server"], record["url_host"], record["scopes"]) == ("lab", "127.0.0.1", ["read"])
    assert record["outcome"]["action"] == "accept" and record["answered_by"] == "handler"
    no_canary(repr(card), default_history().records(), [r.getMessage() for r in caplog.records])
    no_canary(*(r.exc_text for r in caplog.records if r.exc_text))
    # One-shot: the loopback is closed once it took the redirect.
    with pytest.raises(OSError):
        urllib.request.urlopen(card.redirect_uri, timeout=2)


def test_cancel_on_the_card_raises_and_is_recorded(url: str) -> None:
    async def cancel(card: Any) -> None:
        assert card.cancel()

    with pytest.raises(SignInError, match="cancelled"):
        connect_fails(url, handler=cancel)
    assert signins()[0]["outcome"]["action"] == "cancel"


def test_cancel_while_waiting_for_the_browser(url: str) -> None:
    seen: list[SignInCard] = []
    # The browser never comes back: the person cancels on the card instead.
    handler = consent_then(lambda card: card.cancel(), seen=seen)
    with pytest.raises(SignInError, match="cancelled"):
        connect_fails(url, handler=handler)
    (card,) = seen
    assert card.signin_state == "cancelled"
    with pytest.raises(OSError):  # its loopback is closed
        urllib.request.urlopen(card.redirect_uri, timeout=2)


def test_stopping_connect_ends_the_waiting_card(url: str) -> None:
    """An interrupt (here: the awaiting task cancelled) while the card waits: it ends, its loopback closes."""
    seen: list[SignInCard] = []

    async def main() -> None:
        connecting = asyncio.ensure_future(_connect(url, consent_then(lambda card: None, seen=seen)))
        while not (seen and seen[0].waiting):
            await asyncio.sleep(0.02)
        connecting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await connecting
        for _ in range(200):  # the card hears of it through the main thread (no kernel: a wait runs it)
            if not seen[0].waiting:
                break
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            mw_kernel.post(partial(done.set_result, None))
            await mw_kernel.wait_async(done)
            await asyncio.sleep(0.02)

    asyncio.run(main())
    (card,) = seen
    assert card.signin_state == "failed" and "the sign-in was stopped" in card.closing_line
    with pytest.raises(OSError):
        urllib.request.urlopen(card.redirect_uri, timeout=2)


async def _connect(url: str, handler: Any) -> None:
    await mw.connect(url, name="lab", handler=handler)


def test_a_wrong_state_is_refused_and_the_card_says_so(url: str) -> None:
    seen: list[SignInCard] = []
    pages: list[tuple[int, str]] = []

    def wrong_then_right(card: SignInCard) -> None:
        forged = f"{card.redirect_uri}?code={CANARY_PREFIX}forged&state=not-the-state"
        pages.append(browse(forged))
        pages.append(browse(card.authorization_url))

    async def main() -> None:
        async with mw.connect(url, handler=consent_then(wrong_then_right, seen=seen), name="lab") as srv:
            assert srv.connected

    asyncio.run(main())
    (card,) = seen
    (refused, refused_page), (ok, ok_page) = read_back(pages, 2)
    assert refused == 400 and "Not accepted" in refused_page and ok == 200 and "close this tab" in ok_page
    no_canary(refused_page, ok_page)
    assert card.signin_state == "signed in"  # the right redirect still signed in


def test_a_wrong_state_shows_on_the_waiting_card(url: str) -> None:
    notes: list[str] = []

    async def handler(card: Any) -> None:
        assert card.accept()
        forged = f"{card.redirect_uri}?code={CANARY_PREFIX}forged&state=nope"
        await asyncio.to_thread(browse, forged)
        for _ in range(100):  # the refusal reaches the card through the main thread
            if card.note:
                break
            await asyncio.sleep(0.02)
        notes.append(card.note)
        card.cancel()

    with pytest.raises(SignInError) as caught:
        connect_fails(url, handler=handler)
    (note,) = notes
    assert "refused" in note and "state does not match" in note
    no_canary(note, "".join(traceback.format_exception(caught.value)))


def test_the_pasted_address_path(url: str) -> None:
    """JupyterLab on another machine: the loopback is out of reach, so the person pastes the address."""
    seen: list[SignInCard] = []
    checks: list[bool] = []

    async def handler(card: Any) -> None:
        seen.append(card)
        assert card.accept()
        address = await asyncio.to_thread(ended_on, card.authorization_url)
        checks.append(card.paste(address.replace("state=", "state=x")))  # not this sign-in's: refused
        offered = card.paste_offer
        # The page sends what was pasted as one message (never state): refused too, the field stays.
        card.note = ""  # so that the refusal seen next is this message's
        card._receive(card, {"paste": address.replace("state=", "state=x")}, [])
        checks.append(card.paste_offer == offered != {} and "refused" in card.note)
        card._receive(card, {"paste": address}, [])  # the right one: taken, the field goes
        checks.append(card.paste_offer == {} and "Address received" in card.note)
        no_canary(card.get_state(), repr(card))

    async def main() -> str:
        async with mw.connect(url, handler=handler, name="lab") as srv:
            return str((await srv.call_tool("whoami")).content[0].text)

    assert asyncio.run(main()) == "read"
    assert checks == [False, True, True]
    (card,) = seen
    assert card.signin_state == "signed in"
    no_canary(model_states(), repr(card))


def test_a_pre_registered_client_id_is_used(url: str) -> None:
    """`client_id=` comes first. (This authorization server matches redirect URIs exactly, not any loopback
    port as RFC 8252 asks, so the sign-in itself is not completed here.)"""
    body = json.dumps({"redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none"})
    request = urllib.request.Request(
        url.rsplit("/", 1)[0] + "/register", data=body.encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        client_id = json.loads(answer.read())["client_id"]
    seen: list[SignInCard] = []

    async def look_then_cancel(card: Any) -> None:
        seen.append(card)
        card.cancel()

    with pytest.raises(SignInError, match="cancelled"):
        connect_fails(url, handler=look_then_cancel, client_id=client_id)
    (card,) = seen
    assert f"client_id={client_id}&" in card.authorization_url


def test_sdk_flow_errors_of_a_cancelled_sign_in_are_not_logged_as_tracebacks(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def cancel(card: Any) -> None:
        card.cancel()

    with pytest.raises(SignInError):
        connect_fails(url, handler=cancel)
    assert not [r for r in caplog.records if r.name.startswith("mcp.client.auth") and r.exc_info]


def test_in_a_terminal_the_person_signs_in_on_the_console(url: str) -> None:
    from mcp_widgets.client import console

    lines: list[str] = []

    async def on_the_console(card: Any) -> None:
        def read(prompt: str) -> str:
            lines.append(prompt)
            if prompt.startswith("y sign in"):
                return "y"
            return ended_on(card.authorization_url)  # pasted: the browser is on another machine

        console.ask(card, read=read, write=lines.append)

    async def main() -> str:
        async with mw.connect(url, handler=on_the_console, name="lab") as srv:
            return str((await srv.call_tool("whoami")).content[0].text)

    assert asyncio.run(main()) == "read"
    assert "It asks you to sign in on: 127.0.0.1" in lines and "Scopes: read" in lines
    no_canary(lines)  # what it showed and asked


def test_headless_refusal_names_how_to_sign_in_without_a_person(url: str) -> None:
    with pytest.raises(SignInError) as caught:
        connect_fails(url)
    text = str(caught.value)
    assert "needs a person" in text and HEADLESS_HELP in text
    assert "token_store=" in text and "ClientCredentialsOAuthProvider" in text and "auth=" in text
    record = signins()[0]
    assert record["outcome"]["action"] == "decline" and record["answered_by"] == "headless"


@pytest.mark.parametrize("policy", ["decline", "accept_defaults"])
def test_no_ready_made_handler_accepts_a_sign_in(url: str, policy: str) -> None:
    with pytest.raises(SignInError, match="declined"):
        connect_fails(url, handler=getattr(mw.handlers, policy))


def test_connect_timeout_is_paused_while_the_card_waits(url: str) -> None:
    def slow_person(card: SignInCard) -> None:
        threading.Event().wait(6)  # longer than the timeout: the card is up all that time
        browse(card.authorization_url)

    async def main() -> bool:
        async with mw.connect(url, handler=consent_then(slow_person), name="lab", timeout=5) as srv:
            return srv.connected

    assert asyncio.run(main())


def test_reconnect_after_sign_out_signs_in_again_with_its_timeout_paused(url: str) -> None:
    seen: list[SignInCard] = []

    def slow_after_the_first(card: SignInCard) -> None:
        if len(seen) > 1:
            threading.Event().wait(6)  # longer than the timeout
        browse(card.authorization_url)

    # The bound leaves a loaded machine room for the rest of connecting (1.5 s was once too short there).
    srv = mw.connect_sync(url, handler=consent_then(slow_after_the_first, seen=seen), name="lab", timeout=5)
    try:
        srv.sign_out()
        srv.reconnect()
        assert srv.connected and len(seen) == 2
        assert srv.call_tool_sync("whoami").content[0].text == "read"
    finally:
        srv.close()


def test_sign_out_forgets_the_tokens(url: str) -> None:
    seen: list[SignInCard] = []

    async def main() -> None:
        async with mw.connect(url, handler=consent_then(seen=seen), name="lab") as srv:
            assert tokens.MEMORY._data  # the memory store has the entry
            srv.sign_out()
            assert not tokens.MEMORY._data
        # A second connection in this kernel would have been signed in; after sign_out it asks again.
        async with mw.connect(url, handler=consent_then(seen=seen), name="lab") as srv:
            assert srv.connected

    asyncio.run(main())
    assert len(seen) == 2


def test_scopes_asks_for_more_than_the_server_names(url: str) -> None:
    seen: list[SignInCard] = []

    async def main() -> str:
        async with mw.connect(url, handler=consent_then(seen=seen), name="lab", scopes=["write"]) as srv:
            return str((await srv.call_tool("whoami")).content[0].text)

    assert asyncio.run(main()) == "read write"
    assert seen[0].scopes == ("read", "write")


def test_a_refusal_on_the_authorization_servers_page_ends_the_sign_in(url: str) -> None:
    seen: list[SignInCard] = []
    pages: list[tuple[int, str]] = []
    handler = consent_then(lambda card: pages.append(browse(card.authorization_url)), seen=seen)
    with pytest.raises(SignInError, match="refused: access_denied"):
        connect_fails(url, handler=handler, scopes=["deny"])
    ((status, page),) = read_back(pages, 1)
    assert status == 200 and "Not signed in" in page and "access_denied" in page
    assert seen[0].signin_state == "failed" and "access_denied" in seen[0].closing_line


def test_your_own_token_storage_is_used_and_cleared_on_sign_out(url: str) -> None:
    class Storage:
        def __init__(self) -> None:
            self.tokens: Any = None
            self.client_info: Any = None
            self.cleared = 0

        async def get_tokens(self) -> Any:
            return self.tokens

        async def set_tokens(self, tokens: Any) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> Any:
            return self.client_info

        async def set_client_info(self, client_info: Any) -> None:
            self.client_info = client_info

        def clear(self) -> None:
            self.cleared += 1
            self.tokens = None

    storage = Storage()

    async def main() -> None:
        async with mw.connect(url, handler=consent_then(), name="lab", token_store=storage) as srv:
            assert storage.tokens is not None and not tokens.MEMORY._data  # yours, not ours
            srv.sign_out()

    asyncio.run(main())
    assert storage.cleared == 1 and storage.tokens is None


def test_the_keyring_store(url: str) -> None:
    import keyring
    import keyring.backend

    class InMemory(keyring.backend.KeyringBackend):
        """A real keyring backend that keeps its passwords in this process."""

        priority = 1

        def __init__(self) -> None:
            super().__init__()
            self.passwords: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.passwords.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.passwords[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            del self.passwords[(service, username)]

    before = keyring.get_keyring()
    backend = InMemory()
    keyring.set_keyring(backend)
    seen: list[SignInCard] = []
    try:

        async def main() -> None:
            for _ in range(2):
                async with mw.connect(url, handler=consent_then(seen=seen), token_store="keyring") as srv:
                    assert (await srv.call_tool("whoami")).content[0].text == "read"
            stored = json.loads(backend.passwords[("mcp-widgets", url)])
            (issuer,) = [key for key in stored if key != "current"]
            assert stored[issuer]["tokens"]["access_token"].startswith(CANARY_PREFIX)
            srv.sign_out()
            assert backend.passwords == {}

        asyncio.run(main())
    finally:
        keyring.set_keyring(before)
    assert len(seen) == 1  # the second connection found the stored token


def test_memory_store_keeps_a_second_connection_signed_in(url: str) -> None:
    seen: list[SignInCard] = []

    async def main() -> None:
        for _ in range(2):
            async with mw.connect(url, handler=consent_then(seen=seen), name="lab") as srv:
                assert (await srv.call_tool("whoami")).content[0].text == "read"

    asyncio.run(main())
    assert len(seen) == 1


SCRIPT = textwrap.dedent(
    """
    import asyncio, sys, threading, urllib.request
    import mcp_widgets as mw

    cards = []

    async def consent(card):
        cards.append(card)
        if sys.argv[2] == "sign-in":
            card.accept()
            threading.Thread(target=lambda: urllib.request.urlopen(card.authorization_url).read()).start()
        else:
            card.decline()

    async def main():
        async with mw.connect(sys.argv[1], handler=consent, token_store="file") as srv:
            print((await srv.call_tool("whoami")).content[0].text, len(cards))
            if sys.argv[2] == "sign-out":
                srv.sign_out()

    asyncio.run(main())
    """
)


def test_an_expired_token_is_refreshed_with_no_card(short_url: str) -> None:
    seen: list[SignInCard] = []

    async def main() -> list[str]:
        async with mw.connect(short_url, handler=consent_then(seen=seen), name="lab") as srv:
            first = tokens.MEMORY.load(short_url)
            await asyncio.sleep(3.2)
            assert (await srv.call_tool("whoami")).content[0].text == "read"
            return [json.dumps(first), json.dumps(tokens.MEMORY.load(short_url))]

    before, after = asyncio.run(main())
    assert len(seen) == 1 and before != after  # refreshed (and stored), not signed in again


def test_file_store_a_new_process_is_signed_in_with_no_card(short_url: str, tmp_path: Path) -> None:
    """Across processes, and past the stored token's expiry: the new process refreshes it, asking nobody."""
    url = short_url
    env = {**os.environ, "JUPYTER_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("MCP_WIDGETS_HANDLER", None)

    def client(step: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-c", SCRIPT, url, step]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    first = client("sign-in")
    assert first.returncode == 0 and first.stdout.split() == ["read", "1"], first.stderr[-2000:]
    path = tmp_path / "mcp_widgets" / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    (resource,) = data
    assert resource == url
    (issuer,) = [key for key in data[resource] if key != "current"]
    assert data[resource]["current"] == issuer and issuer.startswith(url.rsplit("/", 1)[0])
    first_token = data[resource][issuer]["tokens"]["access_token"]
    assert first_token.startswith(CANARY_PREFIX)
    threading.Event().wait(max(0.0, data[resource][issuer]["expires_at"] - time.time() + 0.3))
    second = client("sign-out")  # no card (it would be declined): the stored token is refreshed and used
    assert second.returncode == 0 and second.stdout.split() == ["read", "0"], second.stderr[-2000:]
    no_canary(first.stdout, first.stderr, second.stdout, second.stderr)
    assert json.loads(path.read_text()) == {}  # signed out: the entry is gone
    third = client("decline")
    assert third.returncode != 0 and "SignInError" in third.stderr


def test_an_abandoned_tab_ends_the_sign_in_after_the_bound(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Consent, then the browser never comes back: `connect(timeout=)` is paused, so the bound after consent
    (`FINISH_WITHIN`, 5 minutes by default; short here) ends it with SignInError and closes the card."""
    from mcp_widgets.core import signin_addresses as signin_core

    assert signin_core.FINISH_WITHIN == 300.0  # the documented default
    # The bound is longer than connect's timeout, which would end the wait first were it not paused. Both are
    # seconds: what comes before the card (the server's 401, its metadata) took over 0.5 s at a load of 12.
    monkeypatch.setattr(signin_core, "FINISH_WITHIN", 4.0)
    seen: list[SignInCard] = []
    with pytest.raises(SignInError, match="did not come back within 4 seconds of consenting") as caught:
        connect_fails(url, handler=consent_then(lambda card: None, seen=seen), timeout=2.0)
    assert "reconnect" in str(caught.value)
    (card,) = seen
    for _ in range(200):  # the card hears of it through the main thread (no kernel: a wait runs it)
        if not card.waiting:
            break
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        mw_kernel.post(partial(done.set_result, None))
        mw_kernel.wait_sync(done, timeout=5)
        time.sleep(0.02)
    assert card.signin_state == "failed" and "did not come back" in card.closing_line
    assert signins()[0]["outcome"] is not None  # the history's record ended too
    with pytest.raises(OSError):  # its loopback is closed
        urllib.request.urlopen(card.redirect_uri, timeout=2)


def test_the_loopback_page_does_not_say_signed_in_before_the_token_exchange(url: str) -> None:
    """The page is sent before the code is exchanged (which may still fail): it never claims "Signed in"."""
    pages: list[tuple[int, str]] = []

    async def main() -> None:
        handler = consent_then(lambda card: pages.append(browse(card.authorization_url)))
        async with mw.connect(url, handler=handler, name="lab") as srv:
            assert srv.connected

    asyncio.run(main())
    ((status, page),) = read_back(pages, 1)
    assert status == 200 and "You may close this tab" in page and "sign-in card there says" in page
    assert "Signed in" not in page
