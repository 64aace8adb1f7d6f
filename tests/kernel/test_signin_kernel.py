"""Signing in from a real kernel: the person clicks Sign in and pastes the address the browser ended on.

The test is JupyterLab on another machine: its browser cannot reach the kernel's loopback, so it reads where
the authorization server redirects (the address with the code) and pastes it into the card's field, which
its page sends as one message (the card is one model; the field is never state). What a
notebook saved with widget state would keep (every open model's state, and the cell's outputs) is checked
while the card is pending, after consent, and after the sign-in: never a code or token
(tests/servers/oauth_quick.py starts each with CANARY_PREFIX).
"""

from __future__ import annotations

import json
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.servers.launch import serving
from tests.servers.oauth_quick import CANARY_PREFIX

from .harness import ROOT, KernelFrontend, WidgetModel
from .test_client_kernel import SIGNIN_CARD_ID, Form, ok

pytestmark = pytest.mark.kernel


@pytest.fixture
def frontend() -> Iterator[KernelFrontend]:
    """One kernel, the newest ipykernel (the older ones wait the same way, tested with the form)."""
    with KernelFrontend(sys.executable) as fe:
        yield fe


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    script = ROOT / "tests" / "servers" / "oauth_quick.py"
    with serving([sys.executable, str(script)], "the OAuth server") as (
        port,
        _,
    ):
        yield f"http://127.0.0.1:{port}/mcp"


def saved(fe: KernelFrontend) -> str:
    """What a notebook saved now keeps: every open model's state and every output."""
    outputs = [
        m["content"]
        for m in fe.iopub_log
        if m["msg_type"] in ("display_data", "update_display_data", "execute_result", "stream", "error")
    ]
    return json.dumps([w.state for w in fe.widgets.values()]) + json.dumps(outputs)


def card_offering(fe: KernelFrontend, label: str) -> Form:
    """The sign-in card (one model) once it offers the button `label`."""

    def offers(w: WidgetModel) -> bool:
        return w.state.get("_anywidget_id") == SIGNIN_CARD_ID and label in [
            b.get("label") for b in w.state.get("buttons", [])
        ]

    return Form(fe, fe.wait_widget("AnyModel", where=offers, timeout=90))


def redirect_of(address: str) -> str:
    class Stop(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    try:
        urllib.request.build_opener(Stop).open(address, timeout=10)
    except urllib.error.HTTPError as exc:
        return str(exc.headers["Location"])
    raise AssertionError("no redirect")


def test_sign_in_by_pasting_the_address_keeps_no_secret(frontend: KernelFrontend, url: str) -> None:
    msg_id = frontend.execute(
        f"import mcp_widgets as mw\nsrv = await mw.connect({url!r}, name='lab')\nprint('ok')"
    )
    card = card_offering(frontend, "Sign in").seen()
    shown = " ".join(card.lines())
    assert "You sign in on: 127.0.0.1" in shown and "Full address: http://127.0.0.1" in shown
    address = re.search(r"Full address: (\S+)", shown)
    assert address is not None
    assert CANARY_PREFIX not in saved(frontend)  # pending
    card.click("Sign in")
    frontend.wait_until(
        lambda: bool(card.model.state.get("paste_offer")), timeout=30, what="the field for the address"
    )
    assert card.model.state["paste_offer"]["submit"] == "Submit address"
    assert CANARY_PREFIX not in saved(frontend)  # waiting for the browser
    ended = redirect_of(address.group(1))
    assert CANARY_PREFIX in ended  # the code is in it: nothing may keep it
    frontend.send_custom(card.model, {"paste": ended})  # pasted, then Enter: the page's one message
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    assert cell.stdout == "ok\n"
    frontend.settle(0.5)
    assert CANARY_PREFIX not in saved(frontend)  # after
    # The card's output became its closing line as text: a notebook reopened without widget state says so.
    updates = [m["content"] for m in frontend.iopub_log if m["msg_type"] == "update_display_data"]
    final = [u["data"]["text/plain"] for u in updates if "Sign-in on" in u["data"].get("text/plain", "")]
    assert final and "signed in" in final[-1] and "pending" not in final[-1], final
    call = ok(
        frontend.run(
            "print((await srv.call_tool('whoami')).content[0].text)\nprint(srv.history.records()[0]['mode'])",
            timeout=60,
        )
    )
    assert call.stdout == "read\nsignin\n"
    assert CANARY_PREFIX not in saved(frontend)
