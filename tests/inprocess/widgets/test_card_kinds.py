"""The `Card` contract: both widget classes satisfy it, and the ready-made handlers decide by `kind`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mcp_widgets import handlers
from mcp_widgets.core.card import Card, FormCard
from mcp_widgets.core.outcome import Action, Outcome, Reason
from mcp_widgets.widgets import ElicitationForm, UrlCard

from .conftest import schema

NAME = schema({"name": {"type": "string", "minLength": 1}}, required=["name"])
DEFAULTS = schema({"plan": {"type": "string", "enum": ["free", "pro"], "default": "free"}})


class SignIn:
    """A test double of a later kind ("sign-in"): the contract only, no widget."""

    kind = "sign-in"
    server = "shop"
    declared_name: str | None = None
    message = "Sign in to shop"

    def __init__(self) -> None:
        self.outcome: Outcome | None = None
        self.result: Any = None
        self._acting: tuple[Reason, str | None] = (Reason.PERSON, None)
        self._callbacks: list[Callable[[Any], object]] = []

    def _answer(self, action: Action) -> bool:
        reason, by = self._acting
        return self.finish(action, reason=reason, by=by)

    def accept(self) -> bool:
        return self._answer(Action.ACCEPT)

    def decline(self) -> bool:
        return self._answer(Action.DECLINE)

    def cancel(self) -> bool:
        return self._answer(Action.CANCEL)

    def finish(
        self, action: Action | str, *, reason: Reason | str, by: str | None = None, note: str = ""
    ) -> bool:
        if self.outcome is not None:
            return False
        self.outcome = Outcome(Action(action), Reason(reason), by, note)
        self.result = {"action": Action(action).value}
        for fn in self._callbacks:
            fn(self)
        return True

    @contextlib.contextmanager
    def acting_as(self, reason: Reason | str, *, by: str | None) -> Iterator[SignIn]:
        previous, self._acting = self._acting, (Reason(reason), by)
        try:
            yield self
        finally:
            self._acting = previous

    def add_done_callback(self, fn: Callable[[Any], object]) -> None:
        self._callbacks.append(fn)

    def close(self) -> None:
        pass


def form(requested: dict[str, Any] = NAME) -> ElicitationForm:
    return ElicitationForm("Who?", requested, server="shop")


def url_card() -> UrlCard:
    return UrlCard("Please sign in.", "https://auth.example.com/connect", server="shop")


def run(handler: Any, card: Any) -> None:
    with card.acting_as(Reason.HANDLER, by="test"):
        asyncio.run(handler(card))


def test_both_widgets_and_the_stand_in_satisfy_the_contract() -> None:
    f, u, s = form(), url_card(), SignIn()
    assert (f.kind, u.kind, s.kind) == ("form", "url", "sign-in")
    assert isinstance(f, Card) and isinstance(f, FormCard)
    assert isinstance(u, Card) and not isinstance(u, FormCard)
    assert isinstance(s, Card) and not isinstance(s, FormCard)
    f.close()
    u.close()


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: form(DEFAULTS), "accept"),  # valid as it comes
        (lambda: form(NAME), "decline"),  # a required field is empty
        (url_card, "decline"),  # never opens a page
        (SignIn, "decline"),  # never signs in
    ],
    ids=["form-valid", "form-invalid", "url", "sign-in"],
)
def test_accept_defaults_by_kind(make: Callable[[], Any], expected: str) -> None:
    card = make()
    run(handlers.accept_defaults, card)
    assert card.outcome.action.value == expected
    assert (card.outcome.reason, card.outcome.by) == (Reason.HANDLER, "test")


@pytest.mark.parametrize("make", [lambda: form(DEFAULTS), url_card, SignIn], ids=["form", "url", "sign-in"])
@pytest.mark.parametrize("handler", [handlers.decline, handlers.cancel], ids=["decline", "cancel"])
def test_decline_and_cancel_work_on_every_kind(make: Callable[[], Any], handler: Any) -> None:
    card = make()
    run(handler, card)
    assert card.outcome.action.value == handler.__name__


def test_scripted_accepts_forms_and_url_cards() -> None:
    f, f2, u = form(NAME), form(DEFAULTS), url_card()
    script = handlers.scripted([{"name": "Ada"}, "accept", "accept"])
    run(script, f)
    run(script, f2)
    run(script, u)
    assert f.result.content == {"name": "Ada"}
    assert f2.result.content == {"plan": "free"}
    assert u.result.action == "accept" and u.waiting
    u.close()


def test_scripted_never_accepts_a_sign_in() -> None:
    for answer in ("accept", {"user": "ada"}):
        card = SignIn()
        with pytest.raises(ValueError, match="never accept a 'sign-in' card"):
            run(handlers.scripted([answer]), card)
        assert card.outcome is None  # the client then cancels it as the handler's failure
    card = SignIn()
    run(handlers.scripted(["decline"]), card)
    assert card.outcome.action is Action.DECLINE


def test_scripted_dict_for_a_url_card_is_refused() -> None:
    card = url_card()
    with pytest.raises(TypeError, match="'url' card, not a form"):
        run(handlers.scripted([{"name": "Ada"}]), card)
    assert card.outcome is None
    card.close()


def test_no_headless_policy_accepts_a_sign_in() -> None:
    for name, policy in handlers.POLICIES.items():
        card = SignIn()
        run(policy, card)
        assert card.outcome.action is not Action.ACCEPT, name


def test_a_link_handler_works_for_a_url_card_and_a_sign_in_card_alike() -> None:
    """Both link cards give the address as `url` (a sign-in card also as `authorization_url`), satisfy the
    public `LinkCard` contract, and can be closed through `Card`."""
    import mcp_widgets as mw
    from mcp_widgets.widgets import SignInCard

    seen: list[str] = []

    async def trusted_hosts_only(card: mw.Card) -> None:
        if isinstance(card, mw.LinkCard) and card.url.startswith("https://auth.example.com/"):
            seen.append(card.kind)
            card.accept()
        else:
            card.decline()

    handler: mw.Handler = trusted_hosts_only
    address = "https://auth.example.com/authorize?state=s1&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback"
    url_card = UrlCard("Finish on our page", address, server="shop")
    signin = SignInCard(address, server="shop")
    form = ElicitationForm("Name?", NAME, server="shop")
    assert signin.url == signin.authorization_url == address
    assert isinstance(url_card, mw.LinkCard) and isinstance(signin, mw.LinkCard)
    assert not isinstance(form, mw.LinkCard) and isinstance(form, mw.FormCard)
    for card in (url_card, signin, form):
        asyncio.run(handler(card))
    assert seen == ["url", "signin"]
    assert url_card.outcome is not None and url_card.outcome.action is Action.ACCEPT
    assert signin.outcome is not None and signin.outcome.action is Action.ACCEPT
    assert form.outcome is not None and form.outcome.action is Action.DECLINE
    for card in (url_card, signin, form):
        card.close()
