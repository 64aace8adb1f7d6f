"""Live resources against the TypeScript SDK's reference server, `@modelcontextprotocol/server-everything`
(pinned in tests/interop/package.json), over stdio: it declares `resources.subscribe`, and its tool
`toggle-subscriber-updates` sends `notifications/resources/updated` for every subscribed resource at once,
then every 5 s."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mcp_widgets.client import Server
from tests.interop.nodejs import everything_server

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(90)]


@pytest.fixture
def everything() -> Iterator[Server]:
    with everything_server() as srv:
        yield srv


def first_resource(srv: Server) -> str:
    return next(str(r.uri) for r in srv.resources if hasattr(r, "uri"))


def test_updates_of_a_subscribed_resource_then_unsubscribed(everything: Server) -> None:
    srv = everything
    assert srv.info.capabilities.resources is not None and srv.info.capabilities.resources.subscribe
    uri = first_resource(srv)

    async def run() -> object:
        async with srv.updates(uri) as updates:
            await srv.call_tool("toggle-subscriber-updates")  # one update at once, then every 5 s
            async for update in updates:
                return update
        return None

    update = asyncio.run(run())
    srv.call_tool_sync("toggle-subscriber-updates")  # off again
    assert update is not None and update.contents is not None  # type: ignore[attr-defined]
    assert str(update.contents.contents[0].uri) == uri  # type: ignore[attr-defined]
    assert srv.wire.records(method="resources/subscribe")
    assert srv.wire.records(method="resources/unsubscribe")
    assert srv.wire.records(method="notifications/resources/updated")


def test_a_watch_redraws_on_its_updates(everything: Server) -> None:
    srv = everything
    uri = first_resource(srv)
    watch = srv.watch(uri)
    watch.wait(0, timeout=30)
    assert watch.text.startswith(f"Resource: {uri}")
    srv.call_tool_sync("toggle-subscriber-updates")
    try:
        watch.wait(1, timeout=30)
    finally:
        srv.call_tool_sync("toggle-subscriber-updates")
    assert watch.updates >= 1 and watch.status.startswith("updated ")
    watch.stop()
    watch.wait(99, timeout=10)
    assert watch.status.endswith("ended: stopped")
