"""Fixtures for the widget tests: live-model bookkeeping, comms that reach a front end, sample schemas."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any, ClassVar

import comm
import ipywidgets
import pytest
from comm.base_comm import BaseComm

from mcp_widgets.widgets._fields import shared_models

HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def live_models() -> dict[str, ipywidgets.Widget]:
    """Every widget model currently open (ipywidgets' own registry)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return dict(ipywidgets.Widget.widgets)


def own_models() -> dict[str, ipywidgets.Widget]:
    """Every widget model open now except the process-wide shared Layouts and Styles (`shared_models`).

    Those are created once per process (a fixed few), hold no user data and are never closed by a form; the
    tests that count models count the others, and `test_form` checks the shared ones on their own.
    """
    shared = {id(m) for m in shared_models()}
    return {key: m for key, m in live_models().items() if id(m) not in shared}


@pytest.fixture(autouse=True)
def _close_new_models() -> Iterator[None]:
    """Close what a test left open (not the shared models), so tests that count start from a clean slate."""
    before = set(live_models())
    yield
    for model_id, widget in own_models().items():
        if model_id not in before:
            widget.close()


class Recording(BaseComm):
    """A comm that keeps what it would send (what a kernel's comm hands to the front end)."""

    sent: ClassVar[list[tuple[str, Any]]] = []

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        Recording.sent.append((msg_type, data))


@pytest.fixture
def kernel_comms() -> Iterator[list[tuple[str, Any]]]:
    """Comms that reach a front end, as inside a kernel (plain Python's drop every message)."""
    Recording.sent = []
    comm.create_comm = Recording
    try:
        yield Recording.sent
    finally:
        comm.create_comm = comm._create_comm


@pytest.fixture
def baseline() -> int:
    """How many models (not counting the shared ones) are open before the test."""
    return len(own_models())


def schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        out["required"] = required
    return out


ALL_KINDS = schema(
    {
        "name": {
            "type": "string",
            "title": "Name",
            "description": "Your name",
            "minLength": 2,
            "maxLength": 20,
        },
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "agree": {"type": "boolean"},
        "color": {"type": "string", "enum": ["red", "green", "blue"]},
        "size": {
            "type": "string",
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}],
        },
        "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
        "tags": {"type": "array", "items": {"enum": ["x", "y", "z"]}, "minItems": 1, "maxItems": 2},
        "picks": {
            "type": "array",
            "items": {"anyOf": [{"const": "p", "title": "Pea"}, {"const": "q", "title": "Queue"}]},
        },
    },
    required=["name"],
)


# -- a one-model form as its page sees it (assets/fields.js, question.js) ------------------------------------
def card_row(form: Any, name: str = "f") -> dict[str, Any]:
    """The spec of field `name` the page renders (server text only: no value typed)."""
    return next(r for r in form.card["rows"] if r.get("name") == name)


def note(form: Any, name: str = "f") -> str:
    """The line under the field (its description, what to pick)."""
    return str(card_row(form, name)["note"])


def verdict(form: Any, name: str = "f") -> str:
    """The field's verdict line the page shows now ("" while none is due)."""
    return str(form.verdicts.get(name, ""))


def page_edit(form: Any, name: str, value: Any, *, view: str = "page") -> None:
    """An edit as the page sends it: a custom message, never state."""
    form._handle_custom_msg({"edit": name, "value": value, "view": view}, [])


def page_press(form: Any, press: str) -> None:
    """A button pressed on the page ("accept", "decline", "cancel", "plain")."""
    form._handle_custom_msg({"press": press}, [])


def page_key(form: Any, **content: Any) -> None:
    """A key the page's keyboard helper sends (``key="Escape"``, ``typed=True``...)."""
    form._handle_custom_msg(content, [])
