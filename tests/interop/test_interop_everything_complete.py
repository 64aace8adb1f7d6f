"""Completions (`completion/complete`) against the TypeScript SDK's reference server,
`@modelcontextprotocol/server-everything`, over stdio: its `completable-prompt` (a department, then names
in that department) and its dynamic text template's `resourceId`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from mcp_widgets.client import Server
from mcp_widgets.core.completion import Completion
from tests.interop.nodejs import everything_server

TEXT = "demo://resource/dynamic/text/{resourceId}"
pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


@pytest.fixture(scope="module")
def everything() -> Iterator[Server]:
    with everything_server() as srv:
        yield srv


def test_a_prompt_argument_completes(everything: Server) -> None:
    got = asyncio.run(everything.complete(prompt="completable-prompt", argument="department", value="S"))
    assert got == Completion(values=["Sales", "Support"], total=2, has_more=False)
    assert got.count_text == "2"


def test_the_other_arguments_go_as_context(everything: Server) -> None:
    got = everything.complete_sync(
        prompt="completable-prompt", argument="name", value="", context={"department": "Engineering"}
    )
    assert got.values == ["Alice", "Bob", "Charlie"]


def test_a_template_variable_completes(everything: Server) -> None:
    got = everything.complete_sync(template=TEXT, argument="resourceId", value="1")
    assert got.values == ["1"]


def test_what_is_not_listed_is_refused_naming_what_is(everything: Server) -> None:
    with pytest.raises(KeyError, match=r"lists no prompt named 'completable'.*completable-prompt"):
        everything.complete_sync(prompt="completable", argument="department", value="S")
    with pytest.raises(KeyError, match=r"lists no resource template 'demo://x/\{id\}'.*dynamic/text"):
        everything.complete_sync(template="demo://x/{id}", argument="id", value="1")


def test_the_wire_keeps_names_not_the_values_typed(everything: Server) -> None:
    everything.complete_sync(
        prompt="completable-prompt", argument="name", value="Cha", context={"department": "Engineering"}
    )
    sent = everything.wire.records(method="completion/complete")
    text = json.dumps(sent)
    assert sent and '"name"' in text and "Cha" not in text and "Engineering" not in text


def test_the_prompt_form_offers_departments_then_names_in_one(everything: Server) -> None:
    async def scenario() -> None:
        form = everything.prompt_form("completable-prompt")
        try:
            assert form.suggesting == ("department", "name")
            form.fill(department="S")
            got = await form.wait_suggestions("department")
            assert got is not None and got.values == ["Sales", "Support"]
            form.pick("department", "Sales")
            form.fill(name="")
            form.fill(department="Engineering")
            form.fill(name="A")
            form.fill(name="")  # the names of the department in the other field (sent as context)
            names = await form.wait_suggestions("name")
            assert names is not None and names.values == ["Alice", "Bob", "Charlie"]
        finally:
            form.close()

    asyncio.run(scenario())


def test_the_template_form_offers_resource_ids(everything: Server) -> None:
    async def scenario() -> None:
        form = everything.template_form(TEXT)
        try:
            form.fill(resourceId="1")
            got = await form.wait_suggestions("resourceId")
            assert got is not None and got.values == ["1"]
        finally:
            form.close()

    asyncio.run(scenario())
