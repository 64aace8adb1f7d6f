"""Live resources (`srv.updates`) and list changes, against a real in-process MCPServer whose counter
changes (tests/servers/live.py), on both protocol generations: 2025-11-25 subscribes with
`resources/subscribe`, 2026-07-28 listens with `subscriptions/listen`."""

from __future__ import annotations

import asyncio
import gc
import time
import traceback

import pytest

from mcp_widgets.client import connect_sync
from tests.servers.live import COUNTER, build_server

MODES = ["auto", "legacy"]
GENERATION = {"auto": "2026-07-28", "legacy": "2025-11-25"}
pytestmark = pytest.mark.timeout(60)


def text(update: object) -> str:
    contents = update.contents  # type: ignore[attr-defined]
    assert contents is not None
    return "".join(getattr(c, "text", "") for c in contents.contents)


async def until(check: object, limit: float = 5.0) -> None:
    deadline = time.monotonic() + limit
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("mode", MODES)
def test_each_update_is_the_resource_read_again_on_both_generations(mode: str) -> None:
    server = build_server()
    with connect_sync(server, mode=mode) as srv:
        assert srv.protocol_version == GENERATION[mode]

        async def run() -> list[str]:
            seen = []
            async with srv.updates(COUNTER) as updates:
                await asyncio.sleep(0.2)  # subscribed meanwhile
                await srv.call_tool("bump")
                async for update in updates:
                    seen.append(text(update))
                    assert update.uri == COUNTER and update.at.tzinfo is not None
                    if len(seen) == 1:
                        await srv.call_tool("bump")
                    else:
                        break
            return seen

        assert asyncio.run(run()) == ["count 1", "count 2"]
        if mode == "legacy":
            assert srv.wire.records(method="resources/subscribe")
            assert srv.wire.records(method="resources/unsubscribe")
            assert server.state["requests"] == [("subscribe", COUNTER), ("unsubscribe", COUNTER)]  # type: ignore[attr-defined]
        else:
            assert srv.wire.records(method="subscriptions/listen")
            assert not srv.wire.records(method="resources/subscribe")


@pytest.mark.parametrize("mode", MODES)
def test_a_thousand_notifications_are_a_few_reads_ending_with_the_newest(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:

        async def run() -> tuple[str, int, int]:
            updates = srv.updates(COUNTER)
            await asyncio.sleep(0.2)
            started = time.monotonic()
            await srv.call_tool("bump", {"times": 1000})
            last = None
            async for update in updates:
                last = update
                if text(update) == "count 1000":
                    break
            assert last is not None
            took = time.monotonic() - started
            await updates.aclose()
            return text(last), last.number, int(1 + took / 0.25 + 2)

        final, reads, bound = asyncio.run(run())
        assert final == "count 1000"
        assert reads <= bound, (reads, bound)  # coalesced: a read per 0.25 s at most (and one more)
        sent = [r for r in srv.wire.records(method="resources/read") if r["direction"] == "out"]
        assert len(sent) <= bound + 1


@pytest.mark.parametrize("mode", MODES)
def test_a_for_loop_in_synchronous_code_blocks_between_updates(mode: str) -> None:
    """`for update in srv.updates(uri)`: the same updates as `async for`, each waited for in place; leaving
    the `with` block unsubscribes before it returns."""
    import threading

    server = build_server()
    with connect_sync(server, mode=mode) as srv:
        seen = []
        with srv.updates(COUNTER) as updates:
            time.sleep(0.2)  # subscribed meanwhile
            bumper = threading.Timer(0.1, srv.call_tool_sync, ("bump",))
            bumper.start()
            for update in updates:
                seen.append(text(update))
                if len(seen) == 1:
                    srv.call_tool_sync("bump")
                else:
                    break
            bumper.join()
        assert seen == ["count 1", "count 2"]
        assert updates.ended is not None
        if mode == "legacy":
            assert server.state["requests"][-1] == ("unsubscribe", COUNTER)  # type: ignore[attr-defined]
            assert not server.state["subscribed"]  # type: ignore[attr-defined]

    srv = connect_sync(build_server(), mode=mode)
    updates = srv.updates(COUNTER)
    threading.Timer(0.3, srv.close).start()
    assert list(updates) == []  # the server closed: the loop ends
    assert updates.ended == "the connection was closed"


def test_leaving_the_loop_unsubscribes() -> None:
    server = build_server()
    with connect_sync(server, mode="legacy") as srv:

        async def run() -> None:
            await asyncio.sleep(0)
            async for _update in srv.updates(COUNTER):
                break

        async def bump_then_run() -> None:
            task = asyncio.ensure_future(run())
            await until(lambda: server.state["subscribed"])  # type: ignore[attr-defined]
            await srv.call_tool("bump")
            await task
            gc.collect()
            await until(lambda: not server.state["subscribed"])  # type: ignore[attr-defined]

        asyncio.run(bump_then_run())
        assert server.state["requests"][-1] == ("unsubscribe", COUNTER)  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
def test_the_loop_ends_when_the_server_closes(mode: str) -> None:
    srv = connect_sync(build_server(), mode=mode)

    async def run() -> list[object]:
        updates = srv.updates(COUNTER)
        await asyncio.sleep(0.2)
        asyncio.get_running_loop().call_later(0.2, srv.close)
        got = [u async for u in updates]
        assert updates.ended == "the connection was closed"
        return got

    assert asyncio.run(run()) == []


def test_a_server_without_subscribe_is_refused_in_one_line_before_sending() -> None:
    with connect_sync(build_server(subscribe=False), mode="legacy") as srv:
        with pytest.raises(NotImplementedError) as caught:
            srv.updates(COUNTER)
        message = str(caught.value)
        assert message == (
            "'live' does not offer resource subscriptions: it declares no `resources.subscribe` capability "
            "(nothing was sent)"
        )
        assert caught.value.__cause__ is None and caught.value.__suppress_context__
        assert caught.value._render_traceback_()[0].endswith(message)  # type: ignore[attr-defined]
        assert "".join(traceback.format_exception_only(type(caught.value), caught.value)).count("\n") == 1
        assert not srv.wire.records(method="resources/subscribe")


@pytest.mark.parametrize("mode", MODES)
def test_a_list_change_refreshes_the_tools_and_fn(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:
        srv.call_tool_sync("bump")
        assert not srv.wire.records(method="subscriptions/listen")  # nothing listened for until looked at
        assert "greet" not in {t.name for t in srv.tools}
        before = srv.fn
        srv.call_tool_sync("add_tool", {"name": "greet"})

        async def wait() -> None:
            await until(lambda: "greet" in {t.name for t in srv.tools})

        asyncio.run(wait())
        assert srv.fn is not before and "I am greet" in str(srv.fn.greet.sync())
        if mode == "auto":
            assert srv.wire.records(method="subscriptions/listen")  # 2026-07-28: listened for once looked at


@pytest.mark.parametrize("mode", MODES)
def test_a_watch_redraws_the_resource_in_place_and_ends_when_stopped(mode: str) -> None:
    with connect_sync(build_server(), mode=mode) as srv:
        watch = srv.watch(COUNTER)
        watch.wait(0)
        assert watch.text == "Resource: live://counter (text/plain)\ncount 0"
        assert watch.status.endswith("not updated yet") and watch.updates == 0
        srv.call_tool_sync("bump", {"times": 3})
        deadline = time.monotonic() + 5
        while "count 3" not in watch.text:
            assert time.monotonic() < deadline
            watch.wait(watch.updates + 1, timeout=5)
        assert watch.view.redraws == watch.updates + 1 <= 3
        assert watch.status.startswith(f"updated {watch.updates} time")
        assert "count 3" not in repr(watch.view) and "count 3" not in str(watch.view.get_state())
        watch.stop()
        watch.wait(99, timeout=5)
        assert watch.ended == "stopped" and watch.status.endswith(" · ended: stopped")
        assert not watch.view.live and "count 3" in watch.text  # the last contents stay


def test_a_watch_counts_the_changes_of_a_resource_over_its_cap_and_reads_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A resource read over the watch's cap (5 MB of contents; here 5 characters) is read once: each further
    read of that much would cost the SDK's stdio reader seconds to minutes. Changes are counted instead."""
    from mcp_widgets import kernel
    from mcp_widgets.client.live import watch as watching

    monkeypatch.setattr(watching, "REREAD_CAP", 5)
    with connect_sync(build_server(), mode="legacy") as srv:
        watch = srv.watch(COUNTER)
        watch.wait(0)
        srv.call_tool_sync("bump", {"times": 3})
        deadline = time.monotonic() + 10
        while "changed 3 times since" not in watch.status:
            assert time.monotonic() < deadline, watch.status
            time.sleep(0.02)
            kernel.flush_posted()  # the redraw posted to this (main) thread
        assert watch._feed.reads == 1 and watch.updates == 0 and watch.text.endswith("count 0")
        assert "not read again: 7 characters, over the 5 a watch reads again on its own" in watch.status
        assert srv.read_resource_sync(COUNTER).contents[0].text == "count 3"  # type: ignore[union-attr]
        watch.stop()
        watch.wait(99, timeout=5)
        assert watch.status.endswith("ended: stopped")


def test_a_watch_says_when_the_server_closed() -> None:
    srv = connect_sync(build_server(), mode="legacy")
    watch = srv.watch(COUNTER)
    watch.wait(0)
    srv.close()
    watch.wait(99, timeout=5)
    assert watch.status.endswith("ended: the connection was closed") and not watch.view.live


def test_closing_the_view_ends_the_watch_and_unsubscribes() -> None:
    server = build_server()
    with connect_sync(server, mode="legacy") as srv:
        watch = srv.watch(COUNTER)
        watch.wait(0)
        assert server.state["subscribed"] == {COUNTER}  # type: ignore[attr-defined]
        watch.view.close()
        watch.wait(99, timeout=5)
        deadline = time.monotonic() + 5
        while server.state["subscribed"]:  # type: ignore[attr-defined]
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert watch.ended == "the view was closed"


def test_a_dropped_listen_stream_is_listened_again_over_http() -> None:
    """2026-07-28 over streamable HTTP, the network cut under the listen stream (a proxy drops every
    connection) and back: the feed listens again, reads the resource again (no replay) and goes on."""
    import sys

    from tests.servers.dropping_proxy import DroppingProxy
    from tests.servers.launch import serving

    argv = [sys.executable, "-m", "tests.servers.live", "http"]
    with serving(argv, "the live server") as (port, _proc):
        proxy = DroppingProxy(port)
        try:
            srv = connect_sync(f"http://127.0.0.1:{proxy.port}/mcp", name="live-drop")
            assert srv.protocol_version == "2026-07-28"
            watch = srv.watch(COUNTER)
            watch.wait(0)
            listens = len(srv.wire.records(method="subscriptions/listen"))
            proxy.drop()
            time.sleep(0.05)
            proxy.restore()
            watch.wait(1, timeout=10)  # read again once listening again
            assert len(srv.wire.records(method="subscriptions/listen")) > listens
            before = watch.updates
            srv.call_tool_sync("bump")
            watch.wait(before + 1, timeout=10)
            assert watch.text.endswith("count 1") and watch.ended is None
            srv.close()
        finally:
            proxy.close()


def test_a_watch_and_a_loop_end_when_the_server_goes_away() -> None:
    """Over stdio, the server's process ends: the watch's line says so and the `async for` loop ends."""
    import sys

    srv = connect_sync([sys.executable, "-m", "tests.servers.live"], name="live-quits", mode="legacy")
    try:
        watch = srv.watch(COUNTER)
        watch.wait(0)

        async def run() -> list[object]:
            updates = srv.updates(COUNTER)
            await asyncio.sleep(0.2)
            await srv.call_tool("quit_soon")
            return [u async for u in updates]

        assert asyncio.run(run()) == []
        watch.wait(99, timeout=10)
        assert watch.status.endswith("ended: the server closed"), watch.status
        assert not srv.connected
    finally:
        srv.close()
