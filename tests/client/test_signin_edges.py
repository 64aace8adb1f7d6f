"""Sign-in edges (#33): declining a sign-in the server asks for again after `srv.sign_out()`.

Against tests/servers/oauth_quick.py (a real OAuth-protected MCP server and authorization server).
"""

from __future__ import annotations

from typing import Any

import pytest

import mcp_widgets as mw
from mcp_widgets.core.signin import SignInError
from tests.client.test_signin import consent_then, url  # noqa: F401 (the module's server fixture)

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
