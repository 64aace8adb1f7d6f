from __future__ import annotations

import dataclasses
import json

import pytest

from mcp_widgets.core.outcome import Action, Outcome, Reason, to_wire


def test_actions_are_the_wire_strings() -> None:
    assert [a.value for a in Action] == ["accept", "decline", "cancel"]
    assert Action("decline") is Action.DECLINE
    assert Action.ACCEPT == "accept"


def test_reasons_are_stable_strings() -> None:
    assert {r.value for r in Reason} == {
        "person",
        "handler",
        "policy",
        "withdrawn",
        "timeout",
        "invalid-schema",
        "refused-url",
        "interrupt",
        "error",
        "expired",
    }


def test_outcome_defaults_to_the_person() -> None:
    outcome = Outcome(Action.ACCEPT)
    assert (outcome.reason, outcome.by, outcome.note) == (Reason.PERSON, None, "")
    assert outcome.describe() == "accepted by the person"


def test_outcome_holds_no_content() -> None:
    assert [f.name for f in dataclasses.fields(Outcome)] == ["action", "reason", "by", "note"]


def test_outcome_is_frozen_and_comparable() -> None:
    outcome = Outcome(Action.DECLINE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.action = Action.ACCEPT  # type: ignore[misc]
    assert outcome == Outcome(Action.DECLINE, Reason.PERSON)
    assert outcome != Outcome(Action.CANCEL)


@pytest.mark.parametrize(
    ("outcome", "text"),
    [
        (Outcome(Action.DECLINE), "declined by the person"),
        (Outcome(Action.CANCEL), "cancelled by the person"),
        (Outcome(Action.ACCEPT, Reason.HANDLER, by="auto_fill"), "accepted by handler 'auto_fill'"),
        (Outcome(Action.ACCEPT, Reason.HANDLER), "accepted by a handler"),
        (Outcome(Action.DECLINE, Reason.POLICY, by="decline-all"), "declined by policy 'decline-all'"),
        (Outcome(Action.DECLINE, Reason.POLICY), "declined by a policy"),
        (Outcome(Action.CANCEL, Reason.WITHDRAWN), "cancelled: the server withdrew the request"),
        (Outcome(Action.CANCEL, Reason.TIMEOUT), "cancelled: nobody answered in time"),
        (Outcome(Action.CANCEL, Reason.INVALID_SCHEMA), "cancelled: the requested schema is invalid"),
        (Outcome(Action.DECLINE, Reason.REFUSED_URL), "declined: the URL is not safe to open"),
        (Outcome(Action.CANCEL, Reason.INTERRUPT), "cancelled: the kernel was interrupted"),
        (Outcome(Action.CANCEL, Reason.ERROR), "cancelled: an error occurred"),
        (  # answered too late: not "accepted", and who answered stays in `by`
            Outcome(Action.ACCEPT, Reason.EXPIRED, by="person", note="answered after 11 min"),
            "expired (answered after 11 min)",
        ),
        (
            Outcome(Action.CANCEL, Reason.TIMEOUT, note="after 5 min"),
            "cancelled: nobody answered in time (after 5 min)",
        ),
        (Outcome("accept", "person"), "accepted by the person"),  # type: ignore[arg-type]
    ],
)
def test_describe(outcome: Outcome, text: str) -> None:
    assert outcome.describe() == text


def test_every_reason_can_be_described() -> None:
    for action in Action:
        for reason in Reason:
            assert Outcome(action, reason).describe()
            assert "a note" in Outcome(action, reason, by="h", note="a note").describe()


@pytest.mark.parametrize(
    ("action", "content", "wire"),
    [
        (Action.ACCEPT, {"a": 1}, {"action": "accept", "content": {"a": 1}}),
        (Action.ACCEPT, {}, {"action": "accept", "content": {}}),
        (Action.ACCEPT, None, {"action": "accept"}),
        ("accept", {"x": ["y"]}, {"action": "accept", "content": {"x": ["y"]}}),
        (Action.DECLINE, None, {"action": "decline"}),
        (Action.DECLINE, {"a": 1}, {"action": "decline"}),
        (Action.CANCEL, {"a": 1}, {"action": "cancel"}),
        ("cancel", None, {"action": "cancel"}),
    ],
)
def test_to_wire(action: Action | str, content: dict[str, object] | None, wire: dict[str, object]) -> None:
    result = to_wire(action, content)
    assert result == wire
    assert json.loads(json.dumps(result)) == wire  # plain JSON, no enum objects
    assert type(result["action"]) is str


def test_to_wire_refuses_unknown_actions() -> None:
    with pytest.raises(ValueError):
        to_wire("maybe")
