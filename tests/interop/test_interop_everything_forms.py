"""Prompt and resource-template forms against the TypeScript SDK's reference server,
`@modelcontextprotocol/server-everything`, over stdio: its prompts (`args-prompt` requires `city`,
`resource-prompt` embeds a resource) and its dynamic text and blob templates."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import mcp_types
import pytest

from mcp_widgets.client import Server
from mcp_widgets.core.uri_template import TemplateError
from tests.interop.nodejs import everything_server

TEXT = "demo://resource/dynamic/text/{resourceId}"
BLOB = "demo://resource/dynamic/blob/{resourceId}"
CANARY = "Oslo-Canary-5521"
pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


@pytest.fixture(scope="module")
def everything() -> Iterator[Server]:
    with everything_server() as srv:
        yield srv


async def ran(form: Any) -> Any:
    call = form.run()
    assert call is not None, form.errors
    return await form.wait()


def test_what_it_lists(everything: Server) -> None:
    assert {"simple-prompt", "args-prompt", "resource-prompt", "completable-prompt"} <= {
        p.name for p in everything.prompts
    }
    assert {TEXT, BLOB} <= {t.uri_template for t in everything.resources.templates}


def test_args_prompt_requires_city_then_shows_the_message(everything: Server) -> None:
    form = everything.prompt_form("args-prompt")
    try:
        assert form.field_names == ("city", "state")
        assert form._fields["city"].control.description == "City *"
        assert "Name of the city" in form._fields["city"].note.value
        assert form.errors == {"city": "required"} and form.run() is None
        form.fill(city=CANARY)
        result = asyncio.run(ran(form))
        assert isinstance(result, mcp_types.GetPromptResult)  # the SDK's object, as from get_prompt
        assert form.result_text.splitlines() == ["1 message:", "[user]", f"What's weather in {CANARY}?"]
        kept = json.dumps(everything.wire.records(), ensure_ascii=False)
        assert CANARY not in kept  # neither the argument sent nor its echo in the message
    finally:
        form.close()


def test_resource_prompt_shows_the_embedded_resource(everything: Server) -> None:
    form = everything.prompt_form("resource-prompt")
    try:
        form.fill(resourceType="Text", resourceId="2")
        asyncio.run(ran(form))
        lines = form.result_text.splitlines()
        assert lines[:3] == ["2 messages:", "[user]", lines[2]] and "Text resource with id: 2" in lines[2]
        assert "Embedded resource: demo://resource/dynamic/text/2 (text/plain)" in lines
        assert any(line.startswith("Resource 2: This is a plaintext resource") for line in lines)
    finally:
        form.close()


def test_the_text_and_blob_templates_read_from_their_forms(everything: Server) -> None:
    text = everything.template_form(TEXT)
    blob = everything.template_form("Dynamic Blob Resource")  # by its name
    try:
        assert text.field_names == ("resourceId",) and text.errors == {"resourceId": "required"}
        assert text.run() is None
        text.fill(resourceId="3")
        assert text.uri == "demo://resource/dynamic/text/3"
        asyncio.run(ran(text))
        lines = text.result_text.splitlines()
        assert lines[0] == "Resource: demo://resource/dynamic/text/3 (text/plain)"
        assert lines[1].startswith("Resource 3: This is a plaintext resource created at")
        blob.fill(resourceId="4")
        result = asyncio.run(ran(blob))
        assert isinstance(result.contents[0], mcp_types.BlobResourceContents)
        assert blob.result_text.startswith("Resource: demo://resource/dynamic/blob/4 (text/plain): ")
        assert blob.result_text.rstrip().endswith("of data")
    finally:
        text.close()
        blob.close()


def test_read_template_is_one_call_and_an_unexpanded_one_is_refused(everything: Server) -> None:
    result = everything.read_template_sync(TEXT, {"resourceId": 5})
    assert result.contents[0].uri == "demo://resource/dynamic/text/5"
    sent = len(everything.wire.records(method="resources/read"))
    with pytest.raises(TemplateError, match=r"needs a value for 'resourceId'$"):
        everything.read_template_sync(TEXT)
    assert len(everything.wire.records(method="resources/read")) == sent


def same(result: Any) -> str:
    """A result as JSON, its clock times left out (a dynamic resource says when it was made)."""
    return re.sub(r"\d+:\d\d:\d\d( [AP]M)?", "TIME", json.dumps(result.model_dump(exclude={"meta"})))


def test_copied_code_runs_and_gets_what_run_got(everything: Server) -> None:
    """Copy as code against a server we did not write: the line each form gives, run as a cell would
    (with the server bound to `srv`), gets what the form's own Run got."""
    cases = [
        (everything.prompt_form("args-prompt"), {"city": "Oslo", "state": "Viken"}),
        (everything.template_form(TEXT), {"resourceId": "3"}),
        (everything.form("echo"), {"message": 'say "hi"\n\u202eback'}),
    ]
    try:
        for form, values in cases:
            form.fill(**values)
            ran_result = asyncio.run(ran(form))
            cell = f"async def cell(srv):\n    return {form.code}\n"
            space: dict[str, Any] = {}
            exec(compile(cell, "<copied>", "exec"), space)
            copied = asyncio.run(space["cell"](everything))
            assert same(copied) == same(ran_result), form.code
    finally:
        for form, _ in cases:
            form.close()
