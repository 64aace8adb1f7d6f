"""LinkCard: what a URL card and a sign-in card share, a card that offers one checked web address to open.

Both name the asking server, show the address as plain text with its host on a line of its own, and open it
only in the person's own click that consents: the card's view is told the address the kernel checked
(`open_url`, a custom message, withdrawn with null once the card can no longer open it) and opens it in that
click, then tells the kernel (`opened`), which takes that as the consent. Where that view does not run, the
click only consents and the card shows its one live link. A handler reads the address as `card.url` on
either kind. `LinkCardBase` is that life whatever the widget base (the one-model `UrlCard`);
`LinkCardWidget` is it in a box of stock widgets, opening through the shared keyboard helper's view
(keys.js) (`SignInCard`).
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from ..core.outcome import Action, Reason
from ..core.urls import UrlCheck
from ._answerable import Answerable, Answering, FormState
from ._keys import KeyRoute

__all__ = ["LinkCardBase", "LinkCardWidget"]

# JupyterLab's CSS shows a bare anchor as plain text: make the one link look like one.
_LINK_STYLE = "color: var(--jp-content-link-color, #1976d2); text-decoration: underline; font-weight: bold"


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

    def _link_html(self, text: str) -> str:
        """The card's one live link (escaped), for a new tab without a way back to this page."""
        return (
            f'<a href="{html.escape(self.url, quote=True)}" target="_blank" rel="noopener noreferrer" '
            f'style="{_LINK_STYLE}">{html.escape(text)} ↗</a>'
        )


class LinkCardWidget(LinkCardBase, Answerable):
    """A link card as a box of stock widgets, opening through the shared keyboard helper (`SignInCard`)."""

    _route: KeyRoute | None

    def _open_button(self) -> w.Button:
        """The button that consents and opens the address."""
        raise NotImplementedError

    def _open_enabled(self) -> bool:
        return not self._open_button().disabled

    def _disable_open(self) -> None:
        self._open_button().disabled = True

    def _tell_views(self, content: dict[str, Any]) -> None:
        if self._route is not None:
            self._route.send(content)
