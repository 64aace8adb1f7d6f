"""mcp_widgets.kernel without a kernel (plain python): waits, posted callbacks, guards, view tracking.

The kernel paths are tested against real kernels in tests/kernel/test_bridge.py.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import threading
import warnings

import ipywidgets as W
import pytest

from mcp_widgets import kernel as _bridge
from mcp_widgets.core.exceptions import BlockingCallError, MCPWidgetsError
from mcp_widgets.kernel import adapter, posted, running_kernel


def resolve_later(fut: concurrent.futures.Future[str], value: str, delay: float = 0.05) -> None:
    threading.Timer(delay, lambda: fut.set_result(value)).start()


def test_no_kernel_here() -> None:
    assert _bridge.kernel_support() == "none"
    assert _bridge.kernel_version() is None
    assert _bridge.blocking_supported()


def test_wait_sync_returns_the_result() -> None:
    fut: concurrent.futures.Future[str] = concurrent.futures.Future()
    resolve_later(fut, "done")
    assert _bridge.wait_sync(fut) == "done"


def test_wait_sync_raises_the_futures_exception() -> None:
    fut: concurrent.futures.Future[str] = concurrent.futures.Future()
    threading.Timer(0.05, lambda: fut.set_exception(LookupError("boom"))).start()
    with pytest.raises(LookupError, match="boom"):
        _bridge.wait_sync(fut)


def test_wait_sync_times_out_and_leaves_the_future_alone() -> None:
    fut: concurrent.futures.Future[str] = concurrent.futures.Future()
    with pytest.raises(TimeoutError):
        _bridge.wait_sync(fut, timeout=0.1)
    assert not fut.done()


def test_posted_callbacks_run_in_order_on_the_waiting_thread() -> None:
    fut: concurrent.futures.Future[list[tuple[int, bool]]] = concurrent.futures.Future()
    seen: list[tuple[int, bool]] = []
    waiter = threading.current_thread()

    def poster() -> None:
        for i in range(3):
            _bridge.post(lambda i=i: seen.append((i, threading.current_thread() is waiter)))
        _bridge.post(lambda: fut.set_result(list(seen)))

    threading.Thread(target=poster).start()
    assert _bridge.wait_sync(fut, timeout=10) == [(0, True), (1, True), (2, True)]


def test_a_failing_posted_callback_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    fut: concurrent.futures.Future[str] = concurrent.futures.Future()
    _bridge.post(lambda: 1 / 0)  # type: ignore[func-returns-value]
    _bridge.post(lambda: fut.set_result("after"))
    assert _bridge.wait_sync(fut, timeout=10) == "after"
    assert "posted callback failed" in caplog.text


def test_nested_blocking_wait_raises() -> None:
    fut: concurrent.futures.Future[str] = concurrent.futures.Future()

    def nested() -> None:
        try:
            _bridge.wait_sync(concurrent.futures.Future(), timeout=5)
        except BlockingCallError as exc:
            fut.set_result(str(exc))

    _bridge.post(nested)
    message = _bridge.wait_sync(fut, timeout=10)
    assert "already running" in message
    assert "call_tool_background" in message


def test_a_done_future_needs_no_wait_even_inside_another() -> None:
    """A done call's result read from a posted callback (a tool form's done-callback while another cell's
    blocking call pumps) is there at once: nothing to wait for, so nothing is refused."""
    done: concurrent.futures.Future[str] = concurrent.futures.Future()
    done.set_result("there")
    fut: concurrent.futures.Future[object] = concurrent.futures.Future()
    _bridge.post(lambda: fut.set_result(_bridge.wait_sync(done)))
    assert _bridge.wait_sync(fut, timeout=10) == "there"

    def in_handler() -> None:
        fut2.set_result(_bridge.wait_sync(done))

    fut2: concurrent.futures.Future[object] = concurrent.futures.Future()
    posted.wrap_comm_handler(in_handler)()
    assert fut2.result(timeout=1) == "there"


def test_blocking_wait_inside_a_comm_handler_raises() -> None:
    results: list[object] = []

    def handler() -> None:
        results.append(_bridge.in_comm_handler())
        with pytest.raises(BlockingCallError, match="widget callback") as info:
            _bridge.wait_sync(concurrent.futures.Future(), timeout=5)
        results.append(info.value)

    posted.wrap_comm_handler(handler)()
    assert results[0] is True
    assert isinstance(results[1], RuntimeError)
    assert isinstance(results[1], MCPWidgetsError)
    assert not _bridge.in_comm_handler()


def test_keyboard_interrupt_ends_a_blocking_wait() -> None:
    assert threading.current_thread() is threading.main_thread()
    # Plain python's own handler, whatever an earlier test in this process left behind.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        fut: concurrent.futures.Future[str] = concurrent.futures.Future()
        threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            _bridge.wait_sync(fut, timeout=10)
        assert not fut.done()
        # A later wait works as before.
        resolve_later(fut, "again")
        assert _bridge.wait_sync(fut, timeout=10) == "again"
    finally:
        signal.signal(signal.SIGINT, previous)


def test_wait_async_awaits_a_concurrent_future_and_runs_posted_callbacks_on_the_loop() -> None:
    async def main() -> tuple[str, bool]:
        fut: concurrent.futures.Future[str] = concurrent.futures.Future()
        loop_thread = threading.current_thread()
        on_loop: list[bool] = []

        def poster() -> None:
            _bridge.post(lambda: on_loop.append(threading.current_thread() is loop_thread))
            _bridge.post(lambda: fut.set_result("async"))

        threading.Timer(0.05, poster).start()
        value = await _bridge.wait_async(fut)
        return value, on_loop == [True]

    assert asyncio.run(main()) == ("async", True)


def test_wait_async_awaits_an_asyncio_future() -> None:
    async def main() -> str:
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.05, fut.set_result, "plain")
        return await _bridge.wait_async(fut)

    assert asyncio.run(main()) == "plain"


def test_cancelling_wait_async_leaves_the_future_pending() -> None:
    fut: concurrent.futures.Future[str] = concurrent.futures.Future()

    async def main() -> None:
        task = asyncio.ensure_future(_bridge.wait_async(fut))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert not fut.done()


def test_view_tracking_follows_the_frontend_count() -> None:
    button = W.Button(description="x")
    assert button._view_count is None
    _bridge.track_views(button)
    assert button._view_count == 0
    assert not _bridge.is_viewed(button)
    seen = _bridge.viewed_future(button)
    assert not seen.done()
    button.set_state({"_view_count": 1})  # as the frontend's widget manager reports a rendered view
    assert seen.done()
    assert _bridge.is_viewed(button)
    assert _bridge.viewed_future(button).done()
    button.close()


def test_seen_by_now_without_a_kernel_answers_at_once() -> None:
    button = W.Button(description="x")
    _bridge.track_views(button)
    _bridge.deliver_comms()  # nothing to deliver, and no error
    assert _bridge.seen_by_now(button).result(timeout=0) is False
    button.set_state({"_view_count": 1})
    assert _bridge.seen_by_now(button).result(timeout=0) is True
    button.close()


class _BareKernel:
    """Stands in for a kernel of an unknown make: none of the attributes the pump needs."""

    io_loop = None


@pytest.mark.parametrize(
    ("version", "support", "blocking"),
    [
        ("7.4.0", "native", False),  # await works natively, but a blocking wait cannot pump here
        ("12.0.0a1", "native", False),  # no upper bound
        ("7.3.0", "background", False),  # a pump release whose internals are not there
        ("6.30.1", "background", False),  # older than anything tested
        ("", "background", False),
    ],
)
def test_kernel_classification(
    monkeypatch: pytest.MonkeyPatch, version: str, support: str, blocking: bool
) -> None:
    kernel = adapter.Kernel(_BareKernel(), version)
    monkeypatch.setattr(running_kernel, "_kernel_cache", [kernel])
    monkeypatch.setattr(running_kernel, "_warned_background", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert [_bridge.kernel_support() for _ in range(3)] == [support] * 3
    expected = ["calls run in the background instead"] if support == "background" else []
    assert [str(w.message).rsplit("; ", 1)[-1] for w in caught] == expected  # warned once at most
    assert _bridge.blocking_supported() is blocking
    if not blocking:
        with pytest.raises(BlockingCallError, match="cannot deliver"):
            _bridge.wait_sync(concurrent.futures.Future(), timeout=1)


@pytest.mark.parametrize(
    ("version", "support"),
    [
        ("6.17.1", "pump"),  # Google Colab's
        ("6.31.0", "pump"),
        ("7.3.2", "pump"),
        ("7.4.0", "native"),
        ("6.18.0", "background"),  # between tested releases: never run, so never waited on
        ("6.30.1", "background"),
        ("7.0.1", "background"),
        ("7.2.0", "background"),
        ("6.16.2", "background"),
        ("", "background"),
    ],
)
def test_only_the_tested_releases_pump(version: str, support: str) -> None:
    assert adapter.support_of(version) == support
    assert adapter.support_of(version, pumps=False) == ("native" if support == "native" else "background")


def test_call_on_main_returns_the_result_or_the_exception() -> None:
    waiter = threading.current_thread()
    results: list[concurrent.futures.Future[bool]] = []
    done: concurrent.futures.Future[None] = concurrent.futures.Future()

    def worker() -> None:
        results.append(_bridge.call_on_main(lambda: threading.current_thread() is waiter))
        results.append(_bridge.call_on_main(lambda: bool(1 / 0)))
        _bridge.post(lambda: done.set_result(None))

    threading.Thread(target=worker).start()
    _bridge.wait_sync(done, timeout=10)
    assert results[0].result(timeout=0) is True
    assert isinstance(results[1].exception(timeout=0), ZeroDivisionError)


def test_flush_posted_runs_what_nobody_waits_for_in_this_thread() -> None:
    """What `srv.close()` relies on in plain python: the forms it withdrew are closed when it returns."""
    where: list[threading.Thread] = []
    poster = threading.Thread(target=lambda: _bridge.post(lambda: where.append(threading.current_thread())))
    poster.start()
    poster.join()
    assert where == []  # nobody waits: it stays posted
    _bridge.flush_posted()
    assert where == [threading.current_thread()]
