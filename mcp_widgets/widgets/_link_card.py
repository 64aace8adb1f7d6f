"""LinkCard: what a URL card and a sign-in card share, a card that offers one checked web address to open.

Both name the asking server, show the address as plain text with its host on a line of its own, and open it
only in the person's own click that consents: the card's view is told the address the kernel checked
(`open_url`, a custom message, withdrawn with null once the card can no longer open it) and opens it in that
click, then tells the kernel (`opened`), which takes that as the consent. Where that view does not run, the
click only consents and the card shows its one live link. A handler reads the address as `card.url` on
either kind. `LinkCardBase` is that life whatever the widget base; `LinkCardModel` is it as one widget model
(an anywidget) drawn by the question card's renderer (`assets/question.js`, its link block): the `UrlCard`
and the `SignInCard`.
"""

from __future__ import annotations

from typing import Any

import traitlets as t

from ..core.outcome import Action, Reason
from ..core.urls import UrlCheck
from ._answerable import Answering, FormState
from ._keys import DeclaredAnyWidget
from ._keys_assets import QUESTION_CSS, QUESTION_ESM

__all__ = ["LinkCardBase", "LinkCardModel"]


class LinkCardBase(Answering):
    """A card that offers one web address to open, whatever its widget base (`UrlCard`, `SignInCard`).

    A subclass says whether its open button is enabled (`_open_enabled`), disables it (`_disable_open`) and
    tells its views (`_tell_views`).
    """

    url: str
    """The full address the card offers (opened only in the click that consents)."""
    check: UrlCheck
    """What `inspect_url` found: allowed or why not, the host, warnings, the redacted form."""
    _ended: bool  # the card is down to its closing line (or closed)
    _opened: bool  # the page's view opened the address in the click that consented

    def _open_enabled(self) -> bool:
        """Whether the button that consents and opens the address is enabled."""
        raise NotImplementedError

    def _disable_open(self) -> None:
        """Disable the button that consents and opens the address."""
        raise NotImplementedError

    def _tell_views(self, content: dict[str, Any]) -> None:
        """Send `content` to the views that open the address (a custom message, never state)."""
        raise NotImplementedError

    def _may_open(self) -> bool:
        """Whether this card may still open its address now (a URL card's later rounds do not)."""
        return True

    def _answerable(self) -> bool:
        return self._state is FormState.PENDING and not self._ended

    def _resolve(
        self, action: Action, reason: Reason, by: str | None, note: str, *, leave_line: bool = True
    ) -> bool:
        """Settle the card (a consent, or a refusal), then show what follows: the waiting, or the end."""
        with self._lock:
            if not self._answerable():
                return False
            if action is Action.ACCEPT and not self.check.allowed:
                return False
            settled = self._settle(action, reason, by, note, None)
            self._on_settled()
        if self.check.allowed:
            self._disarm()
        if action is Action.ACCEPT:
            self._after_consent()
        else:
            self._after_refusal(leave_line=leave_line)
        self._deliver(settled)
        return True

    def _on_settled(self) -> None:
        """Under the lock, just settled (`self._outcome` is set)."""

    def _after_consent(self) -> None:
        """The person consented: show that the card waits for what happens on the page."""
        raise NotImplementedError

    def _after_refusal(self, *, leave_line: bool) -> None:
        """The person declined or cancelled: the card ends (to its closing line, or gone)."""
        raise NotImplementedError

    def _on_key(self, content: dict[str, Any]) -> None:
        if content.get("key") == "Escape":
            self.cancel()
        elif "opened" in content:
            self._opened_in_browser(content["opened"])

    def _offers_opening(self) -> bool:
        return self._may_open() and self._answerable() and self.check.allowed and self._open_enabled()

    def _arm(self) -> None:
        """A view of the helper listens: tell it the checked address, while the card may still open it."""
        if self._offers_opening():
            self._tell_views({"open_url": self.url})

    def _disarm(self) -> None:
        """The card can no longer open its address: its button is disabled, and the helper's views open
        nothing any more."""
        self._disable_open()
        self._tell_views({"open_url": None})

    def _opened_in_browser(self, url: object) -> None:
        """The helper's view opened the address in the person's click: that click consents."""
        with self._lock:
            if url != self.url or not self._offers_opening():
                return  # a stale click (the card moved on meanwhile), or not the address this card offers
            self._opened = True
        reason, by = self._acting
        self._resolve(Action.ACCEPT, reason, by, "")


class LinkCardModel(LinkCardBase, DeclaredAnyWidget):
    """A link card as one widget model: its state holds only what the server sent and the kernel decided
    (never what a person typed); presses, keys and the opened page come as custom messages."""

    _esm = t.Unicode(QUESTION_ESM, help="The card's front end: question.js (its link block), keys.js.").tag(
        sync=True
    )
    _css = t.Unicode(QUESTION_CSS, help="The card's look (JupyterLab's CSS variables, with fallbacks).").tag(
        sync=True
    )
    card = t.Dict(
        help="What the page renders: its kind, who asks, the message, the host and full URL as text, the "
        "warnings."
    ).tag(sync=True)
    buttons = t.List(
        t.Dict(), help="The buttons of the moment: press, label, tooltip, primary, opens, disabled."
    ).tag(sync=True)
    status = t.Unicode("", help="After consent: what the card waits for.").tag(sync=True)
    link = t.Dict(help="After consent, unless the page opened: the one live link (href, text).").tag(
        sync=True
    )
    closing_line = t.Unicode(
        "", help="Once ended, the one line left: who asked, the host, how it ended."
    ).tag(sync=True)

    _open_on: bool  # whether the button that consents and opens the address is enabled

    def _button_row(self) -> list[dict[str, Any]]:
        """The buttons while the card is pending."""
        raise NotImplementedError

    def _open_enabled(self) -> bool:
        return self._open_on and self.check.allowed

    def _press_action(self, action: Action) -> bool:
        """A button pressed on the page (Cancel, Decline, or the one that consents and opens)."""
        if not self._answerable() or (action is Action.ACCEPT and not self._open_on):
            return False  # a stale click, from a page that had not yet seen the button go, is refused too
        reason, by = self._acting
        return self._resolve(action, reason, by, "")

    def _disable_open(self) -> None:
        self._open_on = False
        if not self._ended:
            self.buttons = self._button_row()

    def _tell_views(self, content: dict[str, Any]) -> None:
        if self.comm is not None:
            self.send(content)
