"""URL cards inside real kernels: the person consents, signs in on the demo page, and says when finished.

The test acts as the browser: it reports the card as rendered, clicks its buttons while the cell waits, and
opens the page only through the link the card shows after consent.
"""

from __future__ import annotations

import urllib.request

import pytest

from .harness import NO_PAGE, KernelFrontend, WidgetModel
from .test_client_kernel import RESET as CLIENT_RESET
from .test_client_kernel import Form, connect, final_line, is_url_card, ok

# One kernel per release serves the module's cases (`reuse_kernel`: a case that fails or leaves it unclean
# gets a fresh one): what they test happens after the kernel's first moments.
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]
RESET = CLIENT_RESET


def pending_card(fe: KernelFrontend, button: str, timeout: float = 90) -> Form:
    """Wait for a URL card (one model) offering `button`."""

    def offers(w: WidgetModel) -> bool:
        return is_url_card(w) and button in [b.get("label") for b in w.state.get("buttons", [])]

    return Form(fe, fe.wait_widget("AnyModel", where=offers, timeout=timeout))


def link(card: Form) -> str | None:
    """The href of the card's one live link, if it shows one."""
    href = (card.model.state.get("link") or {}).get("href")
    return str(href) if href else None


def sign_in(url: str) -> None:
    request = urllib.request.Request(url + "/complete", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=10) as page:
        assert b"Signed in" in page.read()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_person_consents_signs_in_and_the_call_finishes(frontend: KernelFrontend, mode: str) -> None:
    target = "__import__('mcp_widgets.demo', fromlist=['x']).create_server(sign_in_port=0)"
    connect(frontend, mode, target=target)
    msg_id = frontend.execute(
        "r = await srv.call_tool('sign_in', {'timeout': 60})\nprint(r.structured_content)"
    )
    card = pending_card(frontend, "Open page").seen()
    assert link(card) is None  # nothing to navigate to before consent
    card.click("Open page")
    frontend.wait_until(lambda: link(card) is not None, timeout=30, what="the link after consent")
    url = link(card)
    assert url is not None and url.startswith("http://127.0.0.1:")
    if mode == "auto":
        # 2026-07-28: consent ends the round; the server finds the page unfinished and asks again on the same
        # card. Signing in only after that keeps the test from racing the round (signed in first, the server
        # would finish without asking again).
        again = pending_card(frontend, "I've finished — try again")
        assert again.model.comm_id == card.model.comm_id
        sign_in(url)
        again.click("I've finished — try again")
    else:
        sign_in(url)
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    assert cell.stdout == "{'done': True, 'user': 'demo-user'}\n"
    ending = "the server reported it finished" if mode == "legacy" else "the call ended"
    final_line(frontend, ending)


def test_an_unseen_url_card_is_declined_as_a_card(frontend: KernelFrontend) -> None:
    # The closing note names what nobody saw: a URL card, not "the form".
    target = "__import__('mcp_widgets.demo', fromlist=['x']).create_server(sign_in_port=0)"
    connect(frontend, "legacy", target=target)
    call = "r = await srv.call_tool('sign_in', {'timeout': 60})"
    code = f"mwc.questions.answering.LOOK_GRACE = 1.0\n{NO_PAGE}\n{call}"
    ok(frontend.run(code, timeout=90))
    line = final_line(frontend, "no frontend showed the URL card")
    assert "the form" not in line


def test_the_demos_private_notes_complete_on_2026(frontend: KernelFrontend) -> None:
    # As the quickstart promises: "Open page", sign in there, "I've finished — try again": the notes. (It
    # ended at once with "not signed in yet", and calling again asked again, endlessly.)
    target = "__import__('mcp_widgets.demo', fromlist=['x']).create_server(sign_in_port=0)"
    connect(frontend, "auto", target=target)
    msg_id = frontend.execute("r = await srv.call_tool('private_notes')\nprint(r.structured_content)")
    card = pending_card(frontend, "Open page").seen()
    card.click("Open page")
    again = pending_card(frontend, "I've finished — try again")
    url = link(again)
    assert url is not None
    sign_in(url)
    again.click("I've finished — try again")
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    assert cell.stdout == "{'notes': ['Buy oat milk', 'The workshop is on Friday']}\n"


def test_declining_a_required_page_ends_the_call_in_one_line(frontend: KernelFrontend) -> None:
    # 2025-11-25, -32042: the person declines the page; the cell says so in one line (it printed ~120 lines
    # of traceback through the client and the SDK).
    target = "__import__('mcp_widgets.demo', fromlist=['x']).create_server(sign_in_port=0)"
    connect(frontend, "legacy", target=target)
    msg_id = frontend.execute("r = await srv.call_tool('private_notes')")
    pending_card(frontend, "Open page").seen().click("Decline")
    cell = frontend.wait_cell(msg_id, timeout=60)
    assert cell.status == "error" and cell.ename == "ServerError"
    (line,) = "\n".join(cell.traceback).splitlines()
    assert line.endswith(
        "ServerError\x1b[0m: tool 'private_notes' on 'mcp-widgets-demo' was not run: it needs a page opened "
        "first, and that was declined by the person (URL elicitation required, code -32042)"
    ), line
    assert cell.stderr == ""
