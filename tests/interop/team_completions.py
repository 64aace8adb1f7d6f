"""What a person sees of a peer's team completions, checked the same way for each peer: the prompt
`team-greeting` and the template `team://{department}/{name}`, written alike for the TypeScript SDK and
fastmcp."""

from __future__ import annotations

import asyncio
from typing import Any

TEMPLATE = "team://{department}/{name}"


def template_variables_narrow(server: Any) -> None:
    assert server.complete_sync(template=TEMPLATE, argument="department", value="E").values == ["Engineering"]
    got = server.complete_sync(template=TEMPLATE, argument="name", value="", context={"department": "Sales"})
    assert got.values == ["David", "Eve"]


def prompt_form_offers_departments_then_names(server: Any) -> None:
    async def scenario() -> None:
        form = server.prompt_form("team-greeting")
        try:
            assert form.suggesting == ("department", "name")
            form.fill(department="S")
            got = await form.wait_suggestions("department")
            assert got is not None and got.values == ["Sales", "Support"]
            form.pick("department", "Support")
            form.fill(name="F")
            form.fill(name="")  # the names of the department in the other field (sent as context)
            names = await form.wait_suggestions("name")
            assert names is not None and names.values == ["Frank", "Grace"]
        finally:
            form.close()

    asyncio.run(scenario())


def template_form_offers_names_of_the_department(server: Any) -> None:
    async def scenario() -> None:
        form = server.template_form(TEMPLATE)
        try:
            assert form.suggesting == ("department", "name")
            form.fill(department="Engineering")
            await form.wait_suggestions("department")
            form.fill(name="C")
            got = await form.wait_suggestions("name")
            assert got is not None and got.values == ["Charlie"]
        finally:
            form.close()

    asyncio.run(scenario())
