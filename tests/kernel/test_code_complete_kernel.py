"""Tab in a code cell, in real kernels (each ipykernel release the suite has): a `complete_request` inside an
argument string of `srv.get_prompt(...)` / `srv.read_template(...)` gets the server's values in `matches`,
replacing the string's content; a server that never answers is given up on within the bound; a name bound
to anything but a `Server` gets nothing of ours; what was typed reaches neither the wire's records
nor the history."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .harness import CellResult, KernelFrontend
from .test_client_kernel import RESET as CLIENT_RESET

# One kernel per release serves the module's cases (`reuse_kernel`: a case that fails or leaves it unclean
# gets a fresh one): what they test happens after the kernel's first moments.
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]
RESET = CLIENT_RESET

CANARY = "Zq7Canary"

SETUP = """
import json
import asyncio
import mcp_types
from mcp.server.mcpserver import MCPServer
import mcp_widgets.client as mwc
staff = MCPServer("staff")

@staff.prompt(name="greet", description="Greet someone.")
def greet(name: str, team: str = "") -> str:
    return f"Hello {name}"

@staff.resource("people://{team}/{name}", name="Person")
def person(team: str, name: str) -> str:
    return f"{name} of {team}"

@staff.completion()
async def complete(ref, argument, context):
    if argument.value.startswith("never"):
        await asyncio.Event().wait()  # never answers
    if argument.value.startswith("Wi"):  # spaces as sent, a tab, a long value: inserted whole
        return mcp_types.Completion(values=["Wide  gap\\tend", "W" * 3000])
    given = dict(getattr(context, "arguments", None) or {})
    names = ["Alice", "Alan", "Bob", 'Al "the" \\\\ one']
    options = names if argument.name == "name" else ["Sales", "Support"]
    if given.get("team") == "Sales":
        options = ["Alma"]
    found = [o for o in options if o.lower().startswith(argument.value.lower())]
    return mcp_types.Completion(values=found, total=len(found), has_more=False)

class NotAServer:  # what it would answer, were it asked
    def complete_sync(self, *a, **k):
        return srv.complete_sync(*a, **k)

srv = mwc.connect_sync(staff)
other = NotAServer()
import types
class Box:
    pass
box = Box()
box.srv = srv
team = types.SimpleNamespace(box=box)
print("connected", srv.complete_sync(prompt="greet", argument="name", value="Al").values)
"""


SNEAKY = """
from IPython.core.completer import CompletionContext
reads = []
class Sneaky:
    @property
    def __class__(self):
        reads.append("__class__")
        return mwc.Server
    def __getattr__(self, name):
        reads.append(name)
        return srv
sneaky = Sneaky()
matchers = get_ipython().Completer.custom_matchers
ours = [m for m in matchers if m.matcher_identifier == "mcp_widgets.server_values"]
class Door:
    @property
    def srv(self):
        reads.append("property")
        return srv
door = Door()
found = 0
for code in ['sneaky.get_prompt("greet", {"name": "Al', 'sneaky.srv.get_prompt("greet", {"name": "Al',
             'door.srv.get_prompt("greet", {"name": "Al']:
    found += len(ours[0](CompletionContext("Al", code, len(code), 0, 500))["completions"])
print("reads", reads, "matches", found)
"""


def ok(cell: CellResult) -> CellResult:
    assert cell.status == "ok", (cell.ename, cell.evalue, cell.stderr[-3000:])
    return cell


def complete(frontend: KernelFrontend, code: str, timeout: float = 30) -> tuple[dict[str, Any], float]:
    """The kernel's reply to a complete_request with the cursor at the end of `code`, and how long it took."""
    sent = time.monotonic()
    reply = frontend.wait_reply(frontend.complete(code, len(code)), timeout=timeout)
    return reply, time.monotonic() - sent


def test_tab_in_an_argument_string_offers_the_servers_values(frontend: KernelFrontend) -> None:
    assert "connected ['Alice', 'Alan', 'Al \"the\" \\\\ one']" in ok(frontend.run(SETUP, timeout=180)).stdout

    code = 'result = srv.get_prompt("greet", {"name": "Al'
    reply, _ = complete(frontend, code)
    assert reply["status"] == "ok"
    assert reply["matches"] == ["Alice", "Alan", 'Al \\"the\\" \\\\ one']  # written as the string's content
    assert (reply["cursor_start"], reply["cursor_end"]) == (len(code) - 2, len(code))

    # The keyword form over two lines, the other literal entries as context; a template; the _sync form.
    code = 'srv.get_prompt_sync(\n    "greet", arguments={"team": "Sales", "name": \'A'
    reply, _ = complete(frontend, code)
    assert reply["matches"] == ["Alma"] and reply["cursor_start"] == len(code) - 1
    # The cursor inside a string, the dict's entries after it are context too.
    code = 'srv.get_prompt("greet", {"name": "A", "team": "Sales"})'
    cursor = code.index('A"') + 1
    reply = frontend.wait_reply(frontend.complete(code, cursor), timeout=30)
    assert reply["matches"] == ["Alma"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (cursor - 1, cursor)
    code = 'srv.read_template_background("people://{team}/{name}", {"team": "'
    reply, _ = complete(frontend, code)
    assert reply["matches"] == ["Sales", "Support"]
    assert reply["cursor_start"] == reply["cursor_end"] == len(code)

    # A value is inserted as the server sent it: two spaces, a tab (escaped for the string), 3,000 characters.
    code = 'srv.get_prompt("greet", {"name": "Wi'
    reply, _ = complete(frontend, code)
    assert reply["matches"] == ["Wide  gap\\tend", "W" * 3000]

    # A server reached by a dotted path of names (an object's attribute, a namespace's).
    code = 'team.box.srv.get_prompt("greet", {"name": "Al'
    reply, _ = complete(frontend, code)
    assert reply["matches"] == ["Alice", "Alan", 'Al \\"the\\" \\\\ one']

    # A name bound to something else, or to nothing, gets nothing of ours.
    for code in ['other.get_prompt("greet", {"name": "Al', 'nobody.get_prompt("greet", {"name": "Al']:
        reply, _ = complete(frontend, code)
        assert reply["status"] == "ok" and "Alice" not in reply["matches"], reply
    # Nothing of the objects on the way runs: no `__class__`, `__getattr__` or property.
    printed = ok(frontend.run(SNEAKY)).stdout
    assert "reads [] matches 0" in printed, printed
    # A prompt the server does not list: nothing asked.
    reply, _ = complete(frontend, 'srv.get_prompt("nope", {"name": "Al')
    assert "Alice" not in reply["matches"]

    # Something typed goes to the server only: not to the wire's records nor to the history.
    reply, _ = complete(frontend, f'srv.get_prompt("greet", {{"team": "{CANARY}-t", "name": "{CANARY}')
    assert reply["status"] == "ok"
    printed = ok(
        frontend.run(
            "kept = [srv.wire.records(method='completion/complete'), srv.history.records()]\n"
            "print(json.dumps(kept, default=str))"
        )
    ).stdout
    assert CANARY not in printed and "redacted" in printed


def test_a_server_that_never_answers_is_given_up_on_within_the_bound(frontend: KernelFrontend) -> None:
    ok(frontend.run(SETUP, timeout=180))
    complete(frontend, 'srv.get_prompt("greet", {"name": "x')  # warm (Jedi's first look costs)
    quick, quick_took = complete(frontend, 'srv.get_prompt("greet", {"name": "Al')
    assert quick["matches"][:2] == ["Alice", "Alan"]
    reply, took = complete(frontend, 'srv.get_prompt("greet", {"name": "never')
    assert reply["status"] == "ok" and reply["matches"] == []
    assert 0.5 <= took < 0.5 + max(1.5, quick_took * 3), (took, quick_took)
    # The kernel is free and the server still answers.
    assert ok(frontend.run("print('free')")).stdout.strip() == "free"
    again, _ = complete(frontend, 'srv.get_prompt("greet", {"name": "B')
    assert again["matches"] == ["Bob"]
