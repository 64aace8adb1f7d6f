"""Signing in (OAuth): what a sign-in card shows and how the address the browser ends on is read (pure).

Nothing here fetches anything. `read_authorization` takes apart the authorization address the SDK built
(who sees the person's credentials, the scopes, the redirect, the `state`); `read_redirect` checks the address
the browser was sent back to (the loopback's request, or one the person pasted) against it: same redirect,
same `state`. Errors never quote a code, a state or a query: they may be secrets.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from .exceptions import ConnectError
from .urls import UrlCheck, inspect_url

__all__ = [
    "FINISH_WITHIN",
    "HEADLESS_HELP",
    "RECONNECT_TO_SIGN_IN",
    "Authorization",
    "AuthorizationDenied",
    "ConnectBudget",
    "Redirect",
    "RedirectRefused",
    "SignInError",
    "read_authorization",
    "read_redirect",
]

HEADLESS_HELP = (
    'to sign in without a person, connect with a stored token (token_store="file" or "keyring" after one '
    "interactive sign-in, or your own TokenStorage), with client credentials "
    "(auth=ClientCredentialsOAuthProvider(...) from mcp.client.auth.extensions.client_credentials), or with "
    "a ready provider or bearer token (auth=)"
)
"""What a refused sign-in's error says when nobody could be asked."""

RECONNECT_TO_SIGN_IN = "call srv.reconnect() to sign in again"
"""What to do after a refused sign-in ended a connection (the SDK's transport ends with the refusal)."""

FINISH_WITHIN = 300.0
"""Seconds a sign-in waits for the browser to come back after the person consented (`connect`'s timeout is
paused meanwhile): an abandoned tab then ends the sign-in with `SignInError` instead of waiting forever. Read
when each sign-in starts waiting; set `mcp_widgets.core.signin_addresses.FINISH_WITHIN` to change it."""


class SignInError(ConnectError):
    """Signing in did not happen (declined, cancelled, refused, nobody to ask); the text says why, never a
    secret."""


class RedirectRefused(ValueError):
    """An address is not the expected redirect (another place, a wrong `state`, no code); says why only."""


class AuthorizationDenied(RedirectRefused):
    """The right redirect (its `state` matches), carrying the authorization server's error: the sign-in is
    over (the person said no there, or the server refused the request)."""


@dataclass(frozen=True)
class Authorization:
    """An authorization address, taken apart for the card. Its repr leaves out the address and `state`."""

    url: str = field(repr=False)
    check: UrlCheck = field(repr=False)
    """`inspect_url` of the address: the authorization server's host and the warnings about it."""
    state: str = field(repr=False)
    redirect_uri: str
    scopes: tuple[str, ...]

    @property
    def host(self) -> str:
        return self.check.host


def read_authorization(url: str) -> Authorization:
    """Take apart the authorization address the SDK built (`state`, `redirect_uri`, `scope`)."""
    query = parse_qs(urlsplit(url).query)

    def one(name: str) -> str:
        values = query.get(name) or [""]
        return values[0]

    scopes = tuple(dict.fromkeys(one("scope").split()))
    return Authorization(
        url=url, check=inspect_url(url), state=one("state"), redirect_uri=one("redirect_uri"), scopes=scopes
    )


@dataclass(frozen=True)
class Redirect:
    """What the authorization server sent back: the code (a secret), `state` and `iss`. Repr hides all."""

    code: str = field(repr=False)
    state: str = field(repr=False)
    iss: str | None = field(default=None, repr=False)


def _place(url: str) -> tuple[str, str, int | None, str]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    return parts.scheme.lower(), (parts.hostname or "").lower(), port, parts.path or "/"


def read_redirect(address: str, *, redirect_uri: str, state: str) -> Redirect:
    """Check the address the browser ended on against the redirect and `state` the sign-in sent.

    Raises:
        RedirectRefused: Another address, a wrong or missing `state`, an error from the authorization
            server, or no code. The text says which, and quotes none of the address.
    """
    address = address.strip()
    if not address:
        raise RedirectRefused("the address is empty")
    if _place(address) != _place(redirect_uri):
        raise RedirectRefused("that is not the address this sign-in redirects to")
    query = parse_qs(urlsplit(address).query)
    got = (query.get("state") or [""])[0]
    if not state or not hmac.compare_digest(got.encode(), state.encode()):
        raise RedirectRefused("its state does not match this sign-in (an old tab, or not from this sign-in)")
    error = (query.get("error") or [""])[0]
    if error:
        # An error code from the spec's short list; printable and short, or left out.
        shown = error if error.isascii() and error.replace("_", "").isalnum() and len(error) <= 40 else ""
        raise AuthorizationDenied(f"the authorization server refused: {shown or 'an error'}")
    code = (query.get("code") or [""])[0]
    if not code:
        raise RedirectRefused("it carries no authorization code")
    iss = query.get("iss")
    return Redirect(code=code, state=got, iss=iss[0] if iss else None)


class ConnectBudget:
    """`connect`'s timeout as a budget of seconds spent only while no sign-in card waits for the person."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._spent = 0.0
        self._since: float | None = time.monotonic()  # None while paused
        self._pauses = 0

    def pause(self) -> None:
        if self._pauses == 0 and self._since is not None:
            self._spent += time.monotonic() - self._since
            self._since = None
        self._pauses += 1

    def resume(self) -> None:
        self._pauses = max(0, self._pauses - 1)
        if self._pauses == 0 and self._since is None:
            self._since = time.monotonic()

    @property
    def paused(self) -> bool:
        return self._pauses > 0

    def remaining(self) -> float:
        """Seconds left (the whole budget's rest while paused: the clock does not run then)."""
        spent = self._spent + (time.monotonic() - self._since if self._since is not None else 0.0)
        return self.seconds - spent
