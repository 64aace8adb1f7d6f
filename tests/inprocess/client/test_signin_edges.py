"""Sign-in edges (#33): declining a sign-in the server asks for again after `srv.sign_out()`.

Against tests/servers/oauth_quick.py (a real OAuth-protected MCP server and authorization server).
"""

from __future__ import annotations

from typing import Any

import pytest

import mcp_widgets as mw
from mcp_widgets.core.signin_addresses import SignInError
from tests.inprocess.client.test_signin import consent_then, url  # noqa: F401 (the module's server fixture)

pytestmark = pytest.mark.usefixtures("clean_client")


def test_declining_a_sign_in_after_sign_out_raises_sign_in_error(url: str) -> None:  # noqa: F811
    cards: list[Any] = []
    consent = consent_then(seen=cards)

    async def person(card: Any) -> None:
        if not cards:
            await consent(card)  # the first sign-in: consented
        else:
            cards.append(card)
            assert card.decline()

    srv = mw.connect_sync(url, handler=person, name="lab-decline")
    try:
        assert srv.call_tool_sync("whoami").content[0].text == "read"
        srv.sign_out()
        with pytest.raises(SignInError, match=r"declined|cancel"):
            srv.call_tool_sync("whoami")
        assert len(cards) == 2  # asked again, declined: a SignInError, not "the server disconnected"
    finally:
        srv.close()


def test_after_a_declined_sign_in_the_errors_say_reconnect_and_reconnect_signs_in(url: str) -> None:  # noqa: F811
    """The refusal ends the SDK's transport (the connection is lost): the error of that call and of every
    later one until `reconnect()` says how to sign in again; `srv.reconnect()` then asks and works."""
    cards: list[Any] = []
    consent = consent_then(seen=cards)

    async def person(card: Any) -> None:
        if len(cards) == 1:
            cards.append(card)
            assert card.decline()  # only the second time
        else:
            await consent(card)

    srv = mw.connect_sync(url, handler=person, name="lab-decline-again")
    try:
        srv.sign_out()
        with pytest.raises(SignInError, match=r"call srv\.reconnect\(\) to sign in again") as first:
            srv.call_tool_sync("whoami")
        assert "declined" in str(first.value)
        assert not srv.connected
        with pytest.raises(SignInError, match=r"declined.*call srv\.reconnect\(\) to sign in again"):
            srv.call_tool_sync("whoami")  # not "the server disconnected": it did not
        assert len(cards) == 2  # a later call does not ask by itself
        srv.reconnect()
        assert srv.connected and len(cards) == 3
        assert srv.call_tool_sync("whoami").content[0].text == "read"
    finally:
        srv.close()
