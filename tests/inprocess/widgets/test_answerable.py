"""Answering: the life cycle ElicitationForm and UrlCard share, checked on both."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import mcp_types
import pytest

from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, FormState, UrlCard
from mcp_widgets.widgets._answerable import Answering

from .conftest import schema


def form() -> Answering:
    return ElicitationForm("Sign up?", schema({"name": {"type": "string"}}), server="shop")


def card() -> Answering:
    return UrlCard("Sign in", "https://example.com/login", server="shop")


MAKERS = pytest.mark.parametrize("make", [form, card], ids=["form", "card"])


@MAKERS
def test_it_resolves_once_and_tells_every_callback_once(make: Callable[[], Answering]) -> None:
    box = make()
    seen: list[Outcome | None] = []
    box.add_done_callback(lambda b: seen.append(b.outcome))
    assert box.state is FormState.PENDING and box.result is None and box.outcome is None
    assert box.decline() is True
    assert box.decline() is False and box.cancel() is False
    assert box.finish("cancel") is False
    box.add_done_callback(lambda b: seen.append(b.outcome))  # already resolved: called at once
    assert seen == [Outcome(Action.DECLINE, Reason.PERSON)] * 2
    assert box.state is FormState.DECLINED
    assert box.result == mcp_types.ElicitResult(action="decline")
    box.close()


@MAKERS
def test_clicks_inside_acting_as_are_recorded_as_that(make: Callable[[], Answering]) -> None:
    box = make()
    with box.acting_as("handler", by="bot") as same:
        assert same is box
        assert box.cancel() is True
    assert box.outcome == Outcome(Action.CANCEL, Reason.HANDLER, "bot")
    assert box._acting == (Reason.PERSON, None)
    box.close()


@MAKERS
def test_wait_gets_the_result_from_another_thread(make: Callable[[], Answering]) -> None:
    box = make()

    async def main() -> mcp_types.ElicitResult:
        waiting = asyncio.ensure_future(box.wait())
        await asyncio.sleep(0)
        assert not waiting.done()
        thread = threading.Thread(target=box.finish, args=("cancel",), kwargs={"reason": "timeout"})
        thread.start()
        result = await waiting
        thread.join()
        return result

    assert asyncio.run(main()) == mcp_types.ElicitResult(action="cancel")
    assert box.outcome == Outcome(Action.CANCEL, Reason.TIMEOUT)
    box.close()


@MAKERS
def test_closing_a_pending_one_cancels_it_and_names_it(make: Callable[[], Answering]) -> None:
    box = make()
    box.close()
    assert box.state is FormState.CANCELLED
    assert box.outcome == Outcome(Action.CANCEL, Reason.HANDLER, note=f"the {box._NOUN} was closed")


@MAKERS
def test_a_failing_callback_is_logged_with_what_failed(
    make: Callable[[], Answering], caplog: pytest.LogCaptureFixture
) -> None:
    box = make()

    def boom(_box: Answering) -> None:
        raise ValueError("boom")

    box.add_done_callback(boom)
    assert box.decline() is True
    assert f"a done callback of {box._WHAT} failed" in caplog.text
    box.close()
