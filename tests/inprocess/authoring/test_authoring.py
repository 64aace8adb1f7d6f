"""For server authors (#22): models checked at the desk, and asked for real on both generations.

The model suite runs one server (tests/servers/authoring.py: `Resolve` / `Elicit` and `confirm`) in-process
and over stdio, on 2026-07-28 and 2025-11-25, through our client, whose handler fills the form as a person
would: what the tool receives is the typed instance. Models the spec has no shape for are refused by
`check_model` with the rule and the field named. The confirmation is also asked by the SDK's own `Client`,
with and without an elicitation callback (the -32021 case).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal

import anyio
import mcp_types as t
import pytest
from mcp import Client
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import InvalidSignature
from mcp.server.mcpserver.resolve import Elicit, ElicitationResult, Resolve
from pydantic import BaseModel, Field

import mcp_widgets as mw
from mcp_widgets.authoring import ModelError, as_model, check_model, confirm
from mcp_widgets.client import connect_sync
from mcp_widgets.playground import playground  # not mw.playground: importing the module rebinds that name
from tests.servers import SERVERS
from tests.servers.authoring import EveryKind, build_server

pytestmark = pytest.mark.usefixtures("clean_client")  # see tests/conftest.py

MODES = ["auto", "legacy"]
SERVER = [sys.executable, str(SERVERS / "authoring.py")]

# --------------------------------------------------------------------------- at the desk


class Inner(BaseModel):
    x: int


class Colour(str, enum.Enum):
    RED = "red"


REFUSED: list[tuple[Any, str]] = [
    (Inner, "nested-model"),
    (list[Inner], "list-of-objects"),
    (list[str], "list-not-choices"),
    (Colour, "enum-class"),
    (list[Colour], "enum-class"),
    (int | str, "union"),
    (dict[str, int], "mapping"),
    (Literal[1, 2], "choice-not-string"),
    (Literal["only"], "fixed-value"),
    (Annotated[int, Field(multiple_of=5)], "constraint-unchecked"),
    (dt.time, "unsupported-type"),
    (bytes, "unsupported-type"),
]


@pytest.mark.parametrize(("annotation", "rule"), REFUSED, ids=[r for _, r in REFUSED])
def test_a_model_the_spec_cannot_ask_is_refused_with_the_rule_and_the_field(
    annotation: Any, rule: str
) -> None:
    model = type("Asked", (BaseModel,), {"__annotations__": {"fine": str, "broken": annotation}})
    with pytest.raises(ModelError) as caught:
        check_model(model)
    (problem,) = caught.value.problems
    assert (problem.rule, problem.property, problem.severity) == (rule, "broken", "error")
    assert f"[{rule}] property 'broken'" in str(caught.value) and "Asked" in str(caught.value)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, mw.MCPWidgetsError)


def test_every_problem_is_named_at_once() -> None:
    class Two(BaseModel):
        a: Inner
        b: list[str]

    with pytest.raises(ModelError) as caught:
        mw.check_model(Two)
    assert [(p.rule, p.property) for p in caught.value.problems] == [
        ("nested-model", "a"),
        ("list-not-choices", "b"),
    ]


def test_a_default_breaking_its_own_constraint_is_refused() -> None:
    class Seats(BaseModel):
        seats: int = Field(default=0, ge=1)

    with pytest.raises(ModelError, match=r"\[default-constraint\] property 'seats'"):
        check_model(Seats)


def test_what_is_not_a_model_is_refused() -> None:
    for thing in (int, {"type": "object"}, Inner(x=1)):
        with pytest.raises(ModelError, match=r"\[not-a-model\]"):
            check_model(thing)  # type: ignore[arg-type]


def test_the_schema_is_the_sdks_own_rendering_and_passes_check_schema() -> None:
    schema = check_model(EveryKind)
    assert schema == render_elicitation_schema(EveryKind)
    assert mw.check_schema(schema) == []
    props = schema["properties"]
    assert props["homepage"] == {"format": "uri", "minLength": 1, "title": "Homepage", "type": "string"}
    assert props["toppings"]["items"] == {"enum": ["nuts", "wafer", "cherries"], "type": "string"}
    assert (
        props["level"]["oneOf"][1] == {"const": "hi", "title": "High"} and props["level"]["default"] == "lo"
    )
    assert set(schema["required"]) == {"name", "email", "birthday", "meeting"}


def test_a_dataclass_is_asked_as_a_model_of_its_fields() -> None:
    @dataclasses.dataclass
    class Trip:
        city: Literal["Lisbon", "Kyoto"]
        nights: Annotated[int, Field(ge=1)] = 2

    model = as_model(Trip)
    assert as_model(Trip) is model and issubclass(model, BaseModel)
    assert check_model(Trip) == render_elicitation_schema(model)
    assert check_model(Trip)["properties"]["nights"] == {
        "default": 2,
        "minimum": 1,
        "title": "Nights",
        "type": "integer",
    }


def test_the_authors_room_imports_no_widget_kernel_or_ipython() -> None:
    probe = (
        "import mcp_widgets.authoring, json, sys\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    heavy = {"ipywidgets", "anywidget", "traitlets", "ipykernel", "IPython", "comm", "zmq"}
    assert not loaded & heavy, sorted(loaded & heavy)
    assert {"mcp", "pydantic"} <= loaded  # the probe sees what it loads


def test_confirm_names_only_tool_arguments() -> None:
    server: MCPServer[Any] = MCPServer("x")
    with pytest.raises(InvalidSignature, match="'pth'"):

        @server.tool()
        async def delete(path: str, ok: Annotated[bool, Resolve(confirm("Delete {pth}?"))]) -> bool:
            return ok


# --------------------------------------------------------------------------- asked for real

ANSWER = {
    "name": "ada",
    "email": "ada@example.org",
    "homepage": "https://example.org/ada",
    "birthday": "1815-12-10",
    "meeting": "2027-01-15T09:00:00+00:00",
    "seats": 3,
    "budget": 12.5,
    "newsletter": True,
    "size": "l",
    "level": "hi",
    "toppings": ["nuts", "cherries"],
}
TYPES = {
    "name": "str",
    "email": "str",
    "homepage": "AnyUrl",
    "birthday": "date",
    "meeting": "datetime",
    "seats": "int",
    "budget": "float",
    "newsletter": "bool",
    "size": "str",
    "level": "str",
    "toppings": "list",
    "note": "NoneType",
}


class Person:
    """A handler that answers from a script and keeps the schema each form was built from."""

    __name__ = "person"

    def __init__(self, *answers: dict[str, Any] | str) -> None:
        self.answers = list(answers)
        self.schemas: list[dict[str, Any]] = []

    async def __call__(self, card: Any) -> None:
        self.schemas.append(dict(card.spec.schema))
        answer = self.answers.pop(0)
        if isinstance(answer, dict):
            card.fill(**answer)
            assert card.errors == {}
            card.accept()
        else:
            getattr(card, answer)()


def parse(result: t.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.fixture(params=["inproc", "stdio"])
def kind(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


@pytest.mark.parametrize("mode", MODES)
def test_every_field_kind_round_trips_to_a_typed_instance(kind: str, mode: str) -> None:
    person = Person(ANSWER, "decline", "cancel", "accept", "decline", "cancel")
    srv = connect_sync(build_server() if kind == "inproc" else SERVER, handler=person, mode=mode)
    try:
        assert srv.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        got = parse(srv.call_tool_sync("every_kind"))
        assert got["types"] == TYPES
        expected = EveryKind.model_validate(ANSWER).model_dump(mode="json")
        assert got["values"] == expected and got["values"]["birthday"] == "1815-12-10"
        assert parse(srv.call_tool_sync("every_kind")) == {"action": "decline"}
        assert parse(srv.call_tool_sync("every_kind")) == {"action": "cancel"}
        # What the client was shown is what check_model said the SDK sends (2026-07-28 keeps fewer top keys).
        sent = check_model(EveryKind)
        for schema in person.schemas[:1]:
            assert {k: schema[k] for k in ("type", "properties", "required")} == {
                k: sent[k] for k in ("type", "properties", "required")
            }
        # The confirmation: True only for an explicit accept.
        for expected_ok in (True, False, False):
            assert parse(srv.call_tool_sync("delete", {"path": "/tmp/x"})) == {
                "path": "/tmp/x",
                "deleted": expected_ok,
            }
        assert person.schemas[-1] == {"type": "object", "properties": {}}
        assert person.answers == []
    finally:
        srv.close()


@pytest.mark.parametrize("mode", MODES)
def test_confirm_with_the_sdk_client_and_with_a_client_that_cannot_elicit(mode: str) -> None:
    async def scenario() -> list[Any]:
        outcomes = []
        for action in ("accept", "decline", "cancel", None):
            asked: list[str] = []

            async def answer(
                context: Any, params: t.ElicitRequestParams, action: Any = action, asked: list[str] = asked
            ) -> t.ElicitResult:
                asked.append(params.message)
                return t.ElicitResult(action=action, content={} if action == "accept" else None)

            callback = {"elicitation_callback": answer} if action else {}
            async with Client(build_server(), mode=mode, **callback) as client:
                result = await client.call_tool("delete", {"path": "a.txt"})
            outcomes.append((action, parse(result)["deleted"], asked))
        return outcomes

    assert anyio.run(scenario) == [
        ("accept", True, ["Delete a.txt?"]),
        ("decline", False, ["Delete a.txt?"]),
        ("cancel", False, ["Delete a.txt?"]),
        (None, False, []),  # no elicitation capability: not asked, and not an error (-32021) either
    ]


# --------------------------------------------------------------------------- the widget side


def texts(widget: Any) -> list[str]:
    import ipywidgets as w

    found = [widget.value] if isinstance(widget, w.Label) else []
    for child in getattr(widget, "children", ()):
        found.extend(texts(child))
    return found


def test_preview_of_a_model_shows_the_sent_schema_and_what_the_tool_receives(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("DEBUG")
    preview = mw.preview(EveryKind, message="Tell us about you")
    try:
        assert preview.model is EveryKind and preview.sent_schema == check_model(EveryKind)
        shown = texts(preview)
        assert json.dumps(check_model(EveryKind), ensure_ascii=False) in shown
        assert "Accept → nothing yet (Accept is disabled)" in shown
        assert any(line.startswith("Decline → DeclinedElicitation(action='decline')") for line in shown)
        preview.form.fill(**ANSWER)
        line = next(text for text in texts(preview) if text.startswith("Accept → EveryKind("))
        assert "birthday=datetime.date(1815, 12, 10)" in line and "seats=3" in line
        preview.form.accept()
        assert any(text.startswith("Accepted → EveryKind(name='ada'") for text in texts(preview))
    finally:
        preview.close()
    assert "ada@example.org" not in caplog.text  # shown to the author, never logged


def test_preview_and_playground_of_a_refused_model_keep_accept_disabled() -> None:
    class Broken(BaseModel):
        inner: Inner
        note: str = "hi"

    preview = mw.preview(Broken)
    pg = playground(Broken)
    try:
        assert preview.sent_schema is None
        assert [(p.rule, p.property) for p in preview.problems] == [("nested-model", "inner")]
        assert preview.sent_json("accept") is None and "note" in preview.form.field_names
        assert "none: the SDK refuses this model (see the problems below)" in texts(preview)
        assert (
            pg.editor.disabled
            and pg.editor.value.startswith("none: the SDK refuses")
            and pg.preview is not None
        )
        assert [p.rule for p in pg.preview.problems] == ["nested-model"]
    finally:
        preview.close()
        pg.close()


def test_playground_of_a_model_shows_its_schema_read_only() -> None:
    pg = playground(EveryKind, message="Hi")
    try:
        assert json.loads(pg.editor.value) == check_model(EveryKind) and pg.editor.disabled
        first = pg.preview
        pg.message.value = "Hello"  # the message stays editable: a new preview of the same model
        assert pg.preview is not first and pg.preview is not None and pg.preview.model is EveryKind
    finally:
        pg.close()


class Pick(BaseModel):
    name: Literal["a.txt", "b.txt"]


async def ask_pick() -> Elicit[Pick]:
    return Elicit("Which file?", Pick)


def delete_question(pick: Annotated[ElicitationResult[Pick], Resolve(ask_pick)], folder: str) -> str | None:
    return f"Delete {folder}/{pick.data.name}?" if pick.action == "accept" else None


def picking_server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("picking")

    @server.tool()
    async def delete(
        folder: str,
        pick: Annotated[ElicitationResult[Pick], Resolve(ask_pick)],
        ok: Annotated[bool, Resolve(confirm(delete_question))],
    ) -> dict[str, Any]:
        return {"deleted": ok, "action": pick.action}

    return server


@pytest.mark.parametrize("mode", MODES)
def test_confirm_asks_after_the_answers_its_question_depends_on(mode: str) -> None:
    async def scenario(first: str) -> tuple[dict[str, Any], list[str]]:
        asked: list[str] = []

        async def answer(context: Any, params: t.ElicitRequestParams) -> t.ElicitResult:
            asked.append(params.message)
            if params.message == "Which file?":
                return t.ElicitResult(action=first, content={"name": "b.txt"} if first == "accept" else None)
            return t.ElicitResult(action="accept", content={})

        async with Client(picking_server(), mode=mode, elicitation_callback=answer) as client:
            result = await client.call_tool("delete", {"folder": "tmp"})
        return parse(result), asked

    assert anyio.run(scenario, "accept") == (
        {"deleted": True, "action": "accept"},
        ["Which file?", "Delete tmp/b.txt?"],
    )
    # No file picked: the question is None, nothing is confirmed and nothing more is asked.
    assert anyio.run(scenario, "decline") == ({"deleted": False, "action": "decline"}, ["Which file?"])


def test_a_model_pydantic_cannot_render_is_refused_not_crashed() -> None:
    class Callback(BaseModel):
        f: Callable[[int], int]

    @dataclasses.dataclass
    class Unknown:
        x: Undefined  # type: ignore[name-defined]  # noqa: F821

    for model, why in ((Callback, "invalid-for-json-schema"), (Unknown, "NameError")):
        with pytest.raises(
            ModelError, match=rf"\[no-json-schema\] schema: pydantic cannot render it \({why}\)"
        ):
            check_model(model)
