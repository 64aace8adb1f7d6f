"""The demo server (`mcp_widgets.demo`), driven by the raw SDK client on both protocol generations.

`mode="auto"` negotiates 2026-07-28 (input-required rounds; the tool body runs once per round),
`mode="legacy"` 2025-11-25 (`elicitation/create` mid-call). A scripted `Person` stands in for the human;
for URL mode the test also plays the person's browser, fetching the demo's local sign-in page.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as t
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from mcp_widgets import check_schema
from mcp_widgets.demo import DemoServer, _schemas, create_server
from mcp_widgets.demo._checking import problems
from mcp_widgets.demo._server import SEED_FILES

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(30),
    # The demo logs on purpose although logging is deprecated on 2026-07-28; it must not warn doing so.
    pytest.mark.filterwarnings("error::mcp.shared.exceptions.MCPDeprecationWarning"),
]
MODES = ["auto", "legacy"]
GENERATION = {"auto": "2026-07-28", "legacy": "2025-11-25"}
Answer = t.ElicitResult | t.ErrorData | Callable[[t.ElicitRequestParams], Awaitable[t.ElicitResult]]

TMP_FILES = ["cache.tmp", "draft.tmp", "scratch.tmp"]
REGISTRATION = {
    "username": "ada_l",
    "email": "ada@example.org",
    "homepage": "https://example.org/ada",
    "birthday": "1815-12-10",
    "first_session": "2027-01-15T09:00:00Z",
    "seats": 2,
    "budget": 120.5,
    "newsletter": True,
    "bio": "",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server() -> Iterator[DemoServer]:
    srv = create_server(sign_in_port=0)
    yield srv
    srv.sign_in.close()


def accept(content: dict[str, Any] | None = None) -> t.ElicitResult:
    return t.ElicitResult(action="accept", content=content)


DECLINE = t.ElicitResult(action="decline")
CANCEL = t.ElicitResult(action="cancel")


class Person:
    """An elicitation callback answering from a script, recording each request it was shown."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[t.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: t.ElicitRequestParams) -> t.ElicitResult | t.ErrorData:
        self.asked.append(params)
        assert self.answers, f"an unexpected question: {params.message!r}"
        answer = self.answers.pop(0)
        if callable(answer):
            return await answer(params)
        return answer

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [p.requested_schema for p in self.asked if isinstance(p, t.ElicitRequestFormParams)]


def connect(target: Any, mode: str, person: Person | None = None, **kwargs: Any) -> Client:
    return Client(target, elicitation_callback=person or Person(), mode=mode, **kwargs)  # type: ignore[arg-type]


async def call(
    target: Any, mode: str, person: Person, tool: str, args: dict[str, Any] | None = None
) -> t.CallToolResult:
    async with connect(target, mode, person) as client:
        assert client.protocol_version == GENERATION[mode]
        return await client.call_tool(tool, args or {})


def data(result: t.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def sent(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema as every client receives it: on 2026-07-28 the SDK drops top-level keys other than these."""
    return {k: v for k, v in schema.items() if k in ("$schema", "type", "properties", "required")}


def browse(url: str, *, post: bool = False) -> tuple[int, str]:
    """What the person's browser does: GET the page, or POST its button's form."""
    request = urllib.request.Request(url, data=b"" if post else None, method="POST" if post else "GET")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def press_sign_in(url: str) -> None:
    """Open the sign-in page and press its button, as the person would."""
    status, page = await anyio.to_thread.run_sync(browse, url)
    assert status == 200 and "<form" in page
    status, page = await anyio.to_thread.run_sync(lambda: browse(url + "/complete", post=True))
    assert status == 200 and "Signed in" in page


# -- schemas -----------------------------------------------------------------------------------------------


def test_every_shipped_schema_is_valid() -> None:
    for name in _schemas.__all__:
        assert check_schema(getattr(_schemas, name)) == [], name  # not even a warning


@pytest.mark.parametrize("mode", MODES)
async def test_every_asked_schema_is_valid(server: DemoServer, mode: str) -> None:
    trip = [
        accept({"kind": "mountains", "travellers": 2}),
        accept({"activity": "skiing"}),
        accept({"rental": True}),
        accept({"start": "2027-02-01", "nights": 4}),
        accept({}),
    ]
    person = Person(
        accept({}),
        accept({"confirm": True}),
        accept(REGISTRATION),
        DECLINE,
        *trip,
        DECLINE,
        DECLINE,
    )
    async with connect(server, mode, person) as client:
        for tool in ["delete_files", "empty_trash", "register", "choose", "plan_trip", "weather", "sign_in"]:
            assert not (await client.call_tool(tool, {})).is_error, tool
    assert len(person.schemas) == 10 and not person.answers
    for schema in person.schemas:
        assert check_schema(schema) == [], schema


async def test_tools_have_titles_and_descriptions(server: DemoServer) -> None:
    tools = await server.list_tools()
    assert {tool.name for tool in tools} >= {
        "delete_files",
        "register",
        "choose",
        "plan_trip",
        "sign_in",
        "long_task",
        "weather",
        "echo_elicit",
        "private_notes",
    }
    for tool in tools:
        assert tool.title and tool.description and len(tool.description) > 40, tool.name


def test_shared_server_and_fresh_servers() -> None:
    import mcp_widgets.demo as demo

    assert demo.server is demo.server and isinstance(demo.server, DemoServer)
    assert create_server() is not create_server()


# -- confirmations -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_delete_files_only_after_confirmation(server: DemoServer, mode: str) -> None:
    async def confirm(params: t.ElicitRequestParams) -> t.ElicitResult:
        assert isinstance(params, t.ElicitRequestFormParams)
        assert params.requested_schema == {"type": "object", "properties": {}}
        assert all(name in params.message for name in TMP_FILES)
        assert server.files == SEED_FILES and server.trash == {}  # nothing happened before the answer
        return accept({})

    result = data(await call(server, mode, Person(confirm), "delete_files"))
    assert result == {"done": True, "deleted": TMP_FILES}
    assert sorted(server.trash) == TMP_FILES and not any(name.endswith(".tmp") for name in server.files)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [DECLINE, CANCEL])
async def test_delete_files_declined_or_cancelled_changes_nothing(
    server: DemoServer, mode: str, answer: t.ElicitResult
) -> None:
    result = data(await call(server, mode, Person(answer), "delete_files", {"pattern": "*"}))
    assert result == {"done": False, "action": answer.action}
    assert server.files == SEED_FILES and server.trash == {}


@pytest.mark.parametrize("mode", MODES)
async def test_delete_files_with_no_match_asks_nothing(server: DemoServer, mode: str) -> None:
    result = data(await call(server, mode, Person(), "delete_files", {"pattern": "*.xyz"}))
    assert result["done"] is True and result["deleted"] == []


async def test_round_one_does_nothing_and_unasked_answers_do_not_count(server: DemoServer) -> None:
    async with connect(server, "auto") as client:
        first = await client.session.call_tool("delete_files", {}, allow_input_required=True)
        assert isinstance(first, t.InputRequiredResult) and first.input_requests
        assert server.files == SEED_FILES
        (key,) = first.input_requests
        # A client that "answers" without echoing the state it was given: not an answer to anything asked.
        forged = await client.session.call_tool(
            "delete_files", {}, input_responses={key: accept({})}, allow_input_required=True
        )
        assert isinstance(forged, t.InputRequiredResult)
        assert server.files == SEED_FILES
        done = await client.session.call_tool(
            "delete_files",
            {},
            input_responses={key: accept({})},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(done, t.CallToolResult) and data(done)["deleted"] == TMP_FILES


async def test_a_yes_binds_to_the_files_shown(server: DemoServer) -> None:
    async with connect(server, "auto") as client:
        first = await client.session.call_tool("delete_files", {}, allow_input_required=True)
        assert isinstance(first, t.InputRequiredResult)
        (key,) = first.input_requests
        server.files["late.tmp"] = 1  # the store changes while the person reads the question
        again = await client.session.call_tool(
            "delete_files",
            {},
            input_responses={key: accept({})},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(again, t.InputRequiredResult)  # asked again, about the new list
        (new_key,) = again.input_requests
        request = again.input_requests[new_key]
        assert isinstance(request, t.ElicitRequest) and "late.tmp" in request.params.message
        assert "late.tmp" in server.files and "draft.tmp" in server.files


@pytest.mark.parametrize("mode", MODES)
async def test_empty_trash_needs_the_box_ticked(server: DemoServer, mode: str) -> None:
    server.trash = {"old.tmp": 5}
    result = data(await call(server, mode, Person(accept({"confirm": False})), "empty_trash"))
    assert result["done"] is False and server.trash == {"old.tmp": 5}
    result = data(await call(server, mode, Person(DECLINE), "empty_trash"))
    assert result == {"done": False, "action": "decline"} and server.trash == {"old.tmp": 5}
    result = data(await call(server, mode, Person(accept({"confirm": True})), "empty_trash"))
    assert result == {"done": True, "deleted": ["old.tmp"]} and server.trash == {}


# -- forms -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_register_accept_records_the_registration(server: DemoServer, mode: str) -> None:
    person = Person(accept(REGISTRATION))
    result = data(await call(server, mode, person, "register"))
    assert result == {"done": True, "registration": REGISTRATION}
    assert server.registrations == [REGISTRATION]
    assert [sent(s) for s in person.schemas] == [sent(_schemas.REGISTER)]


@pytest.mark.parametrize("mode", MODES)
async def test_register_rejects_content_that_breaks_the_schema(server: DemoServer, mode: str) -> None:
    bad = {**REGISTRATION, "username": "Not Valid!", "seats": 99}
    result = await call(server, mode, Person(accept(bad)), "register")
    assert result.is_error and server.registrations == []
    text = result.content[0].text  # type: ignore[union-attr]
    assert "username: pattern" in text and "seats: maximum" in text
    assert "Not Valid!" not in text  # rules and fields, never values


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [DECLINE, CANCEL])
async def test_register_declined_records_nothing(
    server: DemoServer, mode: str, answer: t.ElicitResult
) -> None:
    result = data(await call(server, mode, Person(answer), "register"))
    assert result == {"done": False, "action": answer.action} and server.registrations == []


@pytest.mark.parametrize("mode", MODES)
async def test_choose_every_shape(server: DemoServer, mode: str) -> None:
    order = {
        "flavour": "pistachio",
        "size": "l",
        "holder": "waffle",
        "toppings": ["nuts", "wafer"],
        "sauces": ["choc", "berry"],
    }
    person = Person(accept(order))
    assert data(await call(server, mode, person, "choose")) == {"done": True, "order": order}
    props = person.schemas[0]["properties"]
    assert "enum" in props["flavour"] and "oneOf" in props["size"] and "enumNames" in props["holder"]
    assert "enum" in props["toppings"]["items"] and "anyOf" in props["sauces"]["items"]
    too_many = {**order, "sauces": ["choc", "berry", "caramel"]}
    assert (await call(server, mode, Person(accept(too_many)), "choose")).is_error


@pytest.mark.parametrize("mode", MODES)
async def test_plan_trip_asks_step_by_step(server: DemoServer, mode: str) -> None:
    async def book(params: t.ElicitRequestParams) -> t.ElicitResult:
        assert "skiing" in params.message and server.bookings == []  # not booked before the last answer
        return accept({})

    person = Person(
        accept({"kind": "mountains", "travellers": 3}),
        accept({"activity": "skiing"}),
        accept({"rental": False, "lessons": 2}),
        accept({"start": "2027-02-01", "nights": 5}),
        book,
    )
    result = data(await call(server, mode, person, "plan_trip"))
    plan = {
        "kind": "mountains",
        "travellers": 3,
        "activity": "skiing",
        "rental": False,
        "lessons": 2,
        "start": "2027-02-01",
        "nights": 5,
    }
    assert result == {"done": True, "booked": plan} and server.bookings == [plan]
    # Each question depends on the answers before it.
    assert person.schemas[1] == sent(_schemas.TRIP_MOUNTAINS) and "rental" in person.schemas[2]["properties"]
    assert "3" in person.asked[1].message


@pytest.mark.parametrize("mode", MODES)
async def test_plan_trip_branches_and_stops_on_decline(server: DemoServer, mode: str) -> None:
    person = Person(accept({"kind": "beach", "travellers": 1}), DECLINE)
    result = data(await call(server, mode, person, "plan_trip"))
    assert result == {"done": False, "action": "decline", "stopped_at": "details"}
    assert person.schemas[1] == sent(_schemas.TRIP_BEACH) and server.bookings == []
    person = Person(accept({"kind": "city", "travellers": 2}), accept({"city": "Kyoto"}), CANCEL)
    result = data(await call(server, mode, person, "plan_trip"))
    assert result["stopped_at"] == "dates" and person.schemas[1] == sent(_schemas.TRIP_CITY)
    assert server.bookings == []


# -- URL mode ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_sign_in_completes_on_the_local_page(server: DemoServer, mode: str) -> None:
    completed: list[str] = []
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, t.ElicitCompleteNotification):
            completed.append(message.params.elicitation_id)
            notified.set()

    async def consent_and_sign_in(params: t.ElicitRequestParams) -> t.ElicitResult:
        assert isinstance(params, t.ElicitRequestURLParams)
        assert params.url.startswith("http://127.0.0.1:")
        assert not server.sign_in.completed(params.url.rsplit("/", 1)[1])
        await press_sign_in(params.url)  # only now, with the URL in hand, does the "browser" go there
        return accept()

    person = Person(consent_and_sign_in)
    async with connect(server, mode, person, message_handler=on_message) as client:
        result = data(await client.call_tool("sign_in", {}))
        assert result == {"done": True, "user": "demo-user"} and server.signed_in
        (params,) = person.asked
        assert isinstance(params, t.ElicitRequestURLParams)
        if mode == "legacy":
            with anyio.fail_after(5):
                await notified.wait()
            assert completed == [params.elicitation_id] and params.elicitation_id
        else:
            assert params.elicitation_id is None and completed == []


async def test_sign_in_asks_again_until_the_page_is_done(server: DemoServer) -> None:
    # 2026-07-28: consent alone does not finish; the next round asks again with the same URL.
    person = Person(accept(), _press_then_accept())
    async with connect(server, "auto", person) as client:
        result = data(await client.call_tool("sign_in", {}))
    assert result == {"done": True, "user": "demo-user"}
    first, second = person.asked
    assert isinstance(first, t.ElicitRequestURLParams) and isinstance(second, t.ElicitRequestURLParams)
    assert first.url == second.url and "Waiting for you to finish signing in" in second.message


def _press_then_accept() -> Callable[[t.ElicitRequestParams], Awaitable[t.ElicitResult]]:
    async def answer(params: t.ElicitRequestParams) -> t.ElicitResult:
        assert isinstance(params, t.ElicitRequestURLParams)
        await press_sign_in(params.url)
        return accept()

    return answer


async def test_sign_in_legacy_completes_after_consent(server: DemoServer) -> None:
    # Consent first; the "browser" finishes afterwards while the server waits for the page.
    pressed: list[threading.Thread] = []

    async def consent(params: t.ElicitRequestParams) -> t.ElicitResult:
        assert isinstance(params, t.ElicitRequestURLParams)
        url = params.url
        thread = threading.Thread(target=lambda: browse(url + "/complete", post=True))
        pressed.append(thread)
        thread.start()
        return accept()

    result = data(await call(server, "legacy", Person(consent), "sign_in"))
    assert result == {"done": True, "user": "demo-user"}
    pressed[0].join(5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [DECLINE, CANCEL])
async def test_sign_in_declined(server: DemoServer, mode: str, answer: t.ElicitResult) -> None:
    person = Person(answer)
    result = data(await call(server, mode, person, "sign_in"))
    assert result == {"done": False, "action": answer.action}
    url = person.asked[0].url  # type: ignore[union-attr]
    assert not server.sign_in.completed(url.rsplit("/", 1)[1]) and not server.signed_in


async def test_sign_in_legacy_gives_up_after_its_timeout(server: DemoServer) -> None:
    result = data(await call(server, "legacy", Person(accept()), "sign_in", {"timeout": 0.2}))
    assert result["done"] is False and "not completed" in result["note"]


async def test_sign_in_links_use_the_public_url_when_given() -> None:
    # JupyterLab on a remote machine, the page published through a proxy: links point at the proxy.
    server = create_server(sign_in_port=0, sign_in_url="https://hub.example.org/user/me/proxy/8976/")
    try:
        person = Person(DECLINE)
        await call(server, "legacy", person, "sign_in")
        url = person.asked[0].url  # type: ignore[union-attr]
        assert url.startswith("https://hub.example.org/user/me/proxy/8976/sign-in/")
        # The proxy forwards to the local page, whose form posts to a relative address.
        status, page = browse(server.sign_in.local_url + "/sign-in/" + url.rsplit("/", 1)[1])
        assert status == 200 and 'action="' in page and 'action="/' not in page and "http" not in page
    finally:
        server.sign_in.close()


NOTES = {"notes": ["Buy oat milk", "The workshop is on Friday"]}


async def test_private_notes_legacy_url_required_then_retry(server: DemoServer) -> None:
    completed: list[str] = []
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, t.ElicitCompleteNotification):
            completed.append(message.params.elicitation_id)
            notified.set()

    async with connect(server, "legacy", message_handler=on_message) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("private_notes", {})
        assert caught.value.code == t.URL_ELICITATION_REQUIRED
        (needed,) = UrlElicitationRequiredError.from_error(caught.value.error).elicitations
        assert needed.elicitation_id and needed.url.endswith(needed.elicitation_id) and not server.signed_in
        await press_sign_in(needed.url)
        with anyio.fail_after(5):
            await notified.wait()
        assert completed == [needed.elicitation_id] and server.signed_in
        assert data(await client.call_tool("private_notes", {})) == NOTES


@pytest.mark.parametrize("mode", MODES)
async def test_private_notes_ask_nothing_once_signed_in(server: DemoServer, mode: str) -> None:
    server.signed_in = True
    assert data(await call(server, mode, Person(), "private_notes")) == NOTES
    assert data(await call(server, mode, Person(), "sign_out")) == {"signed_in": False}
    assert not server.signed_in


async def test_private_notes_asks_in_a_round_on_2026(server: DemoServer) -> None:
    assert data(await call(server, "auto", Person(DECLINE), "private_notes")) == {
        "done": False,
        "action": "decline",
    }
    assert not server.signed_in
    # Consent opens the page and comes back before the person signed in there: the same call asks again
    # with the same URL until the page is finished (it used to end at once, "not signed in yet").
    person = Person(accept(), accept(), _press_then_accept())
    assert data(await call(server, "auto", person, "private_notes")) == NOTES
    assert server.signed_in
    first, *later = person.asked
    assert all(isinstance(p, t.ElicitRequestURLParams) for p in person.asked)
    assert all(p.url == first.url and "Waiting for you to finish" in p.message for p in later)  # type: ignore[union-attr]


async def test_private_notes_page_finished_after_the_call_ended_signs_in_on_2026(server: DemoServer) -> None:
    # The person consented, then left the call (cancelled "try again") and finished the page afterwards:
    # calling again asks nothing (it used to mint a new page every call, endlessly).
    person = Person(accept(), CANCEL)
    assert data(await call(server, "auto", person, "private_notes")) == {"done": False, "action": "cancel"}
    url = person.asked[0].url  # type: ignore[union-attr]
    await press_sign_in(url)
    assert data(await call(server, "auto", Person(), "private_notes")) == NOTES


async def test_a_waiting_sign_in_wakes_when_the_button_is_pressed(server: DemoServer) -> None:
    pages = server.sign_in
    token = pages.new()
    outcome: list[bool] = []

    async def wait() -> None:
        outcome.append(await pages.wait(token, 10))

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait)
        await anyio.wait_all_tasks_blocked()  # the waiter is parked on its event
        assert outcome == []
        status, _ = await anyio.to_thread.run_sync(lambda: browse(pages.url(token) + "/complete", post=True))
    assert status == 200 and outcome == [True]


def test_sign_in_page_refuses_unknown_tokens(server: DemoServer) -> None:
    base = server.sign_in.base_url
    assert browse(f"{base}/sign-in/nope")[0] == 404
    assert browse(f"{base}/sign-in/nope/complete", post=True)[0] == 404
    token = server.sign_in.new()
    assert browse(f"{base}/sign-in/{token}/complete")[0] == 404  # a GET never completes a sign-in
    assert not server.sign_in.completed(token)


# -- progress, logs, fallbacks, echo -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_long_task_reports_progress_and_logs(server: DemoServer, mode: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[tuple[str, Any]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_log(params: t.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data))

    async with connect(server, mode, logging_callback=on_log, log_level="debug") as client:
        result = await client.call_tool(
            "long_task", {"seconds": 0.03, "steps": 3}, progress_callback=on_progress
        )
    assert data(result) == {"done": True, "steps": 3}
    assert progress == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]
    assert ("debug", "finished step 2") in logs and logs[-1] == ("info", "all steps done")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("answer", [DECLINE, CANCEL])
async def test_weather_falls_back_when_not_answered(
    server: DemoServer, mode: str, answer: t.ElicitResult
) -> None:
    result = data(await call(server, mode, Person(answer), "weather"))
    assert result["city"] == "Paris" and result["fallback"] is True and result["answer"] == answer.action


@pytest.mark.parametrize("mode", MODES)
async def test_weather_asks_only_without_a_city(server: DemoServer, mode: str) -> None:
    person = Person(accept({"city": "Oslo"}))
    assert data(await call(server, mode, person, "weather"))["city"] == "Oslo"
    quiet = Person()
    result = data(await call(server, mode, quiet, "weather", {"city": "Lima"}))
    assert result["city"] == "Lima" and result["fallback"] is False and quiet.asked == []


@pytest.mark.parametrize("mode", MODES)
async def test_echo_elicit_returns_the_answer_verbatim(server: DemoServer, mode: str) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string", "pattern": "^a"}}, "x-extra": [1]}
    person = Person(accept({"x": "abc"}), DECLINE)
    async with connect(server, mode, person) as client:
        first = data(await client.call_tool("echo_elicit", {"requested_schema": schema, "message": "Hi?"}))
        second = data(await client.call_tool("echo_elicit", {"requested_schema": schema}))
    assert first == {"action": "accept", "content": {"x": "abc"}} and second == {"action": "decline"}
    (params, _) = person.asked
    assert isinstance(params, t.ElicitRequestFormParams) and params.message == "Hi?"
    assert params.requested_schema == (schema if mode == "legacy" else sent(schema))


async def test_echo_elicit_reports_a_client_error_on_legacy(server: DemoServer) -> None:
    person = Person(t.ErrorData(code=t.INVALID_PARAMS, message="bad schema: property-type"))
    schema = {"type": "object", "properties": {"a": {"type": "object"}}}
    result = data(await call(server, "legacy", person, "echo_elicit", {"requested_schema": schema}))
    assert result == {"error": {"code": t.INVALID_PARAMS, "message": "bad schema: property-type"}}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "schema", [{"type": "object"}, {"type": "array", "properties": {}}, {"properties": {}, "required": "x"}]
)
async def test_echo_elicit_reports_an_unsendable_schema(server: DemoServer, mode: str, schema: Any) -> None:
    # Neither generation gets such a schema to the client: on 2025-11-25 the SDK client refuses it (-32602)
    # before any callback; on 2026-07-28 the SDK server could not even send it, so the tool says so.
    person = Person()
    result = data(await call(server, mode, person, "echo_elicit", {"requested_schema": schema}))
    assert result["error"]["code"] == t.INVALID_PARAMS and person.asked == []


def test_server_side_check_names_fields_and_rules() -> None:
    assert problems(REGISTRATION, _schemas.REGISTER) == []
    bad = {
        "username": "x",
        "email": "not-an-email",
        "homepage": "no scheme",
        "birthday": "10/12/1815",
        "first_session": "2027-01-15T09:00:00",  # no offset
        "seats": 2.5,
        "budget": -1,
        "newsletter": "yes",
    }
    assert sorted(problems(bad, _schemas.REGISTER)) == [
        "birthday: format",
        "budget: minimum",
        "email: format",
        "first_session: format",
        "homepage: format",
        "newsletter: type",
        "seats: type",
        "username: minLength",
    ]
    assert problems({"seats": 2.0, "email": "a@b.co", "username": "abc"}, _schemas.REGISTER) == []
    assert problems({}, _schemas.REGISTER) == ["username: required", "email: required", "seats: required"]
    order = {"flavour": "mint", "size": "xl", "holder": "cup", "sauces": [], "toppings": ["gold"]}
    assert sorted(problems(order, _schemas.CHOOSE)) == [
        "flavour: enum",
        "sauces: minItems",
        "size: enum",
        "toppings: items",
    ]
    assert problems([1], _schemas.CHOOSE) == ["form: type"]


# -- over real transports ----------------------------------------------------------------------------------


def _demo_argv(*extra: str) -> list[str]:
    return [sys.executable, "-m", "mcp_widgets.demo", "--sign-in-port", "0", *extra]


async def test_over_stdio() -> None:
    # One process, one generation (legacy: real elicitation/create requests over the pipe); the HTTP test
    # below covers both generations against one process.
    params = StdioServerParameters(command=_demo_argv()[0], args=_demo_argv()[1:], env=dict(os.environ))
    person = Person(DECLINE, accept({}))
    async with connect(params, "legacy", person) as client:
        assert client.protocol_version == GENERATION["legacy"]
        assert data(await client.call_tool("delete_files", {}))["done"] is False
        assert sorted(data(await client.call_tool("list_files", {}))["files"]) == sorted(SEED_FILES)
        assert data(await client.call_tool("delete_files", {}))["deleted"] == TMP_FILES
        assert data(await client.call_tool("list_files", {}))["trash"].keys() == set(TMP_FILES)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    proc = subprocess.Popen(
        _demo_argv("--http", "--port", "0"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "streamable HTTP on http://" in line, line
        yield line.rsplit(" ", 1)[1].strip()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.mark.parametrize("mode", MODES)
async def test_over_streamable_http(http_url: str, mode: str) -> None:
    async def sign_in(params: t.ElicitRequestParams) -> t.ElicitResult:
        assert isinstance(params, t.ElicitRequestURLParams)
        await press_sign_in(params.url)
        return accept()

    person = Person(accept({"kind": "city", "travellers": 1}), accept({"city": "Vienna"}), DECLINE, sign_in)
    async with connect(http_url, mode, person) as client:
        assert client.protocol_version == GENERATION[mode]
        trip = data(await client.call_tool("plan_trip", {}))
        assert trip == {"done": False, "action": "decline", "stopped_at": "dates"}
        assert data(await client.call_tool("sign_in", {})) == {"done": True, "user": "demo-user"}
    assert person.schemas[1] == _schemas.TRIP_CITY
