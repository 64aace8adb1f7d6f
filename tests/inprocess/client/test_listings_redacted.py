"""A listing that quotes what was typed is redacted (#40): a server renames a tool (and a prompt, a resource,
a template) after the answer it got, and says its lists changed (tests/servers/careless.py over stdio).
Names, titles, descriptions and schemas are redacted; a renamed item is listed as `greet_[redacted]` and
still reaches the server's own by that name; an item listed before the value was typed is kept as it is."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import mcp_types
import pytest

from mcp_widgets import connect_sync
from mcp_widgets.client.listings import ToolList
from mcp_widgets.client.privacy import redacted_listing
from mcp_widgets.core.redaction import REDACTED, typed_pattern
from tests.inprocess.client.test_sdk_logs import CARELESS, person

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(120)]


def _shown(srv: Any) -> str:
    """Everything a listing shows or holds: reprs, HTML, the SDK objects as JSON, the functions."""
    parts = [repr(srv.tools), srv.tools._repr_html_(), repr(srv.prompts), srv.prompts._repr_html_()]
    parts += [repr(srv.resources), srv.resources._repr_html_(), repr(srv.resources.templates), repr(srv.fn)]
    parts += [repr(dir(srv.fn))]
    for listing in (srv.tools, srv.prompts, srv.resources):
        parts += [json.dumps(item.model_dump(mode="json"), ensure_ascii=False) for item in listing]
        parts += [repr(item) for item in listing]
    return "\n".join(parts)


def test_a_listing_naming_items_after_the_answer_is_redacted_and_still_callable() -> None:
    with connect_sync([sys.executable, str(CARELESS)], name="careless", handler=person, mode="legacy") as srv:
        assert srv.call_tool_sync("rename").content[0].text == "renamed"

        async def relist() -> None:  # what a person does on list_changed
            await srv.list_tools()
            await srv.list_prompts()
            await srv.list_resources()

        asyncio.run(relist())
        shown = _shown(srv)
        assert "canary" not in shown.lower(), shown
        names = [t.name for t in srv.tools]
        tool = srv.tools[-1]
        called = srv.call_tool_sync(f"greet_{REDACTED}").content[0].text
        prompt = srv.get_prompt_sync(f"about_{REDACTED}").messages[0].content.text
        note = srv.read_resource_sync(f"notes://{REDACTED}").contents[0].text
        via_fn = srv.fn[f"greet_{REDACTED}"].sync()  # the text of its result

        async def from_the_form() -> str:
            form = srv.form(f"greet_{REDACTED}")
            call = form.run()
            assert call is not None, form.errors
            text = str((await call).content[0].text)
            form.close()
            return text

        via_form = asyncio.run(from_the_form())
    assert names == ["ask", "rename", f"greet_{REDACTED}"]
    assert (tool.title, tool.description) == (f"Greet {REDACTED}", f"Greets {REDACTED}.")
    prop = {"type": "string", "description": f"your {REDACTED}"}
    assert tool.input_schema["properties"] == {REDACTED: prop}
    assert [p.name for p in srv.prompts] == [f"about_{REDACTED}"]
    assert [str(getattr(r, "uri", None) or r.uri_template) for r in srv.resources] == [
        f"notes://{REDACTED}",
        f"files://{REDACTED}/{{path}}",
    ]
    # Called by the names they are listed under, the server's own were sent.
    assert called == via_fn == via_form == "called the tool named after you"
    assert prompt == "the prompt named after you"
    assert note == "the notes named after you"


async def slip(card: Any) -> None:
    """Types a word that the `ask` tool's description already has ("lets it slip out")."""
    card.fill(name="slip")
    card.accept()


def test_an_item_listed_before_the_value_was_typed_is_kept_as_it_is() -> None:
    with connect_sync([sys.executable, str(CARELESS)], name="careless", handler=slip, mode="legacy") as srv:
        before = srv.tools[0].model_dump()
        srv.call_tool_sync("rename")
        asyncio.run(srv.list_tools())
        asyncio.run(srv.list_tools())  # and again: the renamed one stays redacted, the other as it was
        tools = list(srv.tools)
    assert tools[0].model_dump() == before and "slip out" in str(tools[0].description)
    assert [t.name for t in tools] == ["ask", "rename", f"greet_{REDACTED}"]
    assert "slip" not in repr(tools[2])


def test_two_items_renamed_alike_get_names_of_their_own() -> None:
    names = ("a_Quinn", "a_Zoey", "a_[redacted]")
    tools = [mcp_types.Tool(name=n, input_schema={"type": "object"}) for n in names]
    shown, real, clean = redacted_listing(tools, typed_pattern(["Quinn", "Zoey"]))
    listing = ToolList(shown, real, clean)
    assert [t.name for t in listing] == [f"a_{REDACTED} (2)", f"a_{REDACTED} (3)", f"a_{REDACTED}"]
    assert [listing.real_name(t.name) for t in listing] == list(names)
    assert len(clean) == 1  # only the one shown as it was sent
