"""Our OAuth provider: the SDK's `OAuthClientProvider` with a person in the loop (client thread).

The SDK does the protocol: discovery, PKCE, `state` and `iss` checks, refresh, step-up on 403
`insufficient_scope`, client registration (a pre-registered `client_id=`, else a Client ID Metadata Document
at `client_metadata_url=` when the authorization server supports one, else dynamic registration with
`application_type` "native"). We add the person and the redirect:

- On a 401 / 403 a loopback listener opens on 127.0.0.1 (its port is this sign-in's redirect, registered
  when the SDK registers), and closes when the flow ends.
- The SDK's redirect step shows the sign-in card (`signin.present`, main thread) and waits for consent;
  `connect`'s timeout is paused while the card is up. Its callback step waits for the loopback's redirect
  or a pasted address (both checked against the sign-in's redirect and `state` first) or Cancel.
- Credentials go to the connection's token store (`tokens`), keyed by (resource, issuer).

Secrets never leave the SDK's models: our errors say what happened, never a code, token or `state`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
from collections.abc import AsyncGenerator, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata
from mcp.shared.auth_utils import resource_url_from_server_url
from pydantic import AnyUrl, PrivateAttr

from ... import kernel
from ...core import signin_addresses as signin_core
from ...core.signin_addresses import Redirect, SignInError
from ...core.text import clip_line
from ...core.version import __version__
from ..runtime import RUNTIME
from . import card as signin
from . import tokens
from .loopback import Loopback

if TYPE_CHECKING:
    from ...widgets import SignInCard
    from ..context import ServerContext

__all__ = ["SignInProvider", "sign_out", "signin_error"]

log = logging.getLogger("mcp_widgets")


def _names_a_loopback(info: OAuthClientInformationFull) -> bool:
    """Whether every redirect of a registration is one of our sign-in loopbacks (`Loopback.redirect_uri`)."""
    uris = info.redirect_uris or ()
    return bool(uris) and all(
        u.scheme == "http" and u.host == "127.0.0.1" and u.path == "/callback" for u in uris
    )


class _OurErrorsOnly(logging.Filter):
    """The SDK logs every failed flow with its traceback ("OAuth flow error"). A sign-in that ended on the
    card (cancelled, declined, refused), and every refusal of the SDK's own in a flow of ours (an issuer
    mismatch, bad metadata, a refused registration or token), reaches the caller as one `SignInError`:
    not as a traceback in the cell or on stderr as well (Python's last-resort handler prints ERROR records).
    Flows of other providers (an `auth=` of your own) keep the SDK's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            return True
        return signin_error(exc) is None and not (isinstance(exc, OAuthFlowError) and _in_our_flow(exc))


def _in_our_flow(exc: BaseException) -> bool:
    """The exception was caught in the flow of a `SignInProvider` (which raises it as a `SignInError`)."""
    tb = exc.__traceback__
    return tb is not None and isinstance(tb.tb_frame.f_locals.get("self"), SignInProvider)


logging.getLogger("mcp.client.auth.oauth2").addFilter(_OurErrorsOnly())

_PLACEHOLDER = "http://127.0.0.1/callback"


class _Metadata(OAuthClientMetadata):
    """Our client metadata: whatever scope the SDK sets (the server's challenge, a step-up's union) also
    asks for `connect(scopes=...)`: at registration and in the authorization request alike."""

    _extra: tuple[str, ...] = PrivateAttr(default=())

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "scope" and self._extra:
            value = " ".join(dict.fromkeys([*(value or "").split(), *self._extra]))
        super().__setattr__(name, value)


class SignInProvider(OAuthClientProvider):
    """An `httpx2.Auth` that signs the person in through a card in the calling cell."""

    def __init__(
        self,
        ctx: ServerContext,
        url: str,
        *,
        show: Callable[[object], None],
        pause_connect: Callable[[bool], None],
        client_id: str | None = None,
        client_metadata_url: str | None = None,
        scopes: Sequence[str] | str | None = None,
        token_store: Any = None,
    ) -> None:
        self._ctx = ctx
        self._show = show
        """Shows a line or a card outside any call (the calling cell, or the server's `output=`)."""
        self._pause_connect = pause_connect
        """A sign-in card is up (True) or ended (False): `connect`'s clock stops meanwhile."""
        self._client_id = client_id
        self._scopes = tuple(scopes.split() if isinstance(scopes, str) else scopes or ())
        self._loopback: Loopback | None = None
        self._card: SignInCard | None = None
        self.refused: SignInError | None = None
        """How the last sign-in ended, when it was refused (declined, cancelled, failed): a call whose request
        it stopped ends with it, not with "the server disconnected" (the SDK's transport ends meanwhile)."""
        store = tokens.resolve_store(token_store)
        self.resource = resource_url_from_server_url(url)
        self.storage_view: Any = (
            tokens.Bound(store, self.resource, self._issuer)
            if isinstance(store, tokens.MemoryStore | tokens.FileStore | tokens.KeyringStore)
            else store
        )
        metadata = _Metadata(
            client_name=f"mcp-widgets {__version__} (Jupyter)",
            redirect_uris=[AnyUrl(_PLACEHOLDER)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            application_type="native",  # a loopback redirect (2026-07-28: MUST be given for DCR)
            scope=" ".join(self._scopes) or None,
        )
        metadata._extra = self._scopes
        super().__init__(
            url,
            metadata,
            cast(TokenStorage, self.storage_view),
            redirect_handler=self._redirect,
            callback_handler=self._callback,
            client_metadata_url=client_metadata_url,
        )

    def __repr__(self) -> str:
        return f"<SignInProvider for {self._ctx.name!r}>"

    def _issuer(self) -> str | None:
        metadata = self.context.oauth_metadata
        if metadata is not None:
            return str(metadata.issuer)
        return self.context.auth_server_url

    # -- the SDK's flow, with a loopback around it -------------------------------------------------------
    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)
        mine = False  # this flow opened the loopback (the SDK's lock keeps flows from overlapping)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if _asks_to_sign_in(response) and self._loopback is None:
                    await self._open_loopback()  # before the SDK registers: its redirect is known then
                    mine = True
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except OAuthFlowError as exc:  # the SDK refused: say what and why, in words quoting no secret
            refused = SignInError(f"signing in to {self._ctx.name!r} failed: {refusal(exc)}")
            if mine:
                self._end_card(failed=refused)
            raise refused from None
        except BaseException as exc:  # cancelled too (an interrupt, close): the card must not wait on
            if mine:
                self._end_card(failed=exc)
                self.refused = signin_error(exc)
            raise
        finally:
            if mine:
                self._close_loopback()
            await flow.aclose()

    async def _initialize(self) -> None:
        await super()._initialize()
        view = self.storage_view
        if isinstance(view, tokens.Bound) and self.context.current_tokens is not None:
            # A stored token past its time is refreshed before it is sent (else the 401 would ask the person).
            self.context.token_expiry_time = view.expires_at()
        info = self.context.client_info
        if self._client_id and (info is None or info.client_id != self._client_id):
            self.context.client_info = OAuthClientInformationFull(
                client_id=self._client_id,
                redirect_uris=self.context.client_metadata.redirect_uris,
                token_endpoint_auth_method="none",
            )

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        assert self._loopback is not None  # opened on the 401 / 403 that started this
        return await super()._perform_authorization_code_grant()

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        try:
            await super()._handle_token_response(response)
        except Exception:
            # The SDK's text quotes the token endpoint's body: say only what failed.
            raise SignInError(
                f"signing in to {self._ctx.name!r} failed: the authorization server did not issue a token "
                f"(HTTP {response.status_code})"
            ) from None
        self._end_card()

    async def _open_loopback(self) -> None:
        loopback = Loopback(on_refused=self._refused, what=f"signing in to {self._ctx.name!r}")
        await loopback.start()
        self._loopback = loopback
        redirect = AnyUrl(loopback.redirect_uri)
        self.context.client_metadata.redirect_uris = [redirect]
        info = self.context.client_info
        if (
            info is not None
            and not self._client_id
            and info.client_id != self.context.client_metadata_url
            and redirect not in (info.redirect_uris or ())
            and _names_a_loopback(info)
        ):
            # A dynamic registration from an earlier sign-in names that sign-in's port: an authorization
            # server matching redirects exactly would refuse this one (a sign-in declined, then asked again
            # on reconnect), so the SDK registers again, with this port. A registration naming other
            # redirects was made outside (a pre-registered client in the store): it is kept as it is.
            self.context.client_info = None

    def _close_loopback(self) -> None:
        loopback, self._loopback = self._loopback, None
        if loopback is not None:
            loopback.close()

    # -- the person ----------------------------------------------------------------------------------------
    async def _redirect(self, authorization_url: str) -> None:
        """The SDK's redirect step: the card, and consent (connect's timeout paused until the end)."""
        loopback = self._loopback
        assert loopback is not None
        from ...core.signin_addresses import read_authorization

        loopback.expect(read_authorization(authorization_url).state)
        consent: concurrent.futures.Future[SignInCard] = concurrent.futures.Future()
        loop = asyncio.get_running_loop()

        def wire(card: SignInCard) -> None:
            """Main thread, before anyone sees the card: where its paste and Cancel go."""
            self._card = card
            self._pause_connect(True)
            card.add_final_callback(lambda _card: self._pause_connect(False))
            card.on_redirect = lambda redirect: loop.call_soon_threadsafe(self._pasted, redirect)
            card.on_cancel = lambda: loop.call_soon_threadsafe(self._cancelled)
            card.on_denied = lambda why: loop.call_soon_threadsafe(self._denied, why)

        kernel.post(partial(signin.present, self._ctx, self._show, authorization_url, consent, wire))
        await asyncio.wrap_future(consent)

    async def _callback(self) -> AuthorizationCodeResult:
        """After consent: the redirect, within `FINISH_WITHIN` (an abandoned tab must not wait forever; the
        card's failure closes it, through `_auth_flow`)."""
        loopback = self._loopback
        assert loopback is not None
        within = signin_core.FINISH_WITHIN
        try:
            redirect = await asyncio.wait_for(loopback.result(), within)
        except TimeoutError:
            raise SignInError(
                f"signing in to {self._ctx.name!r} failed: the browser did not come back within "
                f"{_duration(within)} of consenting (was the tab closed?); connect or reconnect to sign in "
                "again"
            ) from None
        return AuthorizationCodeResult(code=redirect.code, state=redirect.state, iss=redirect.iss)

    def _pasted(self, redirect: Redirect) -> None:
        if self._loopback is not None:
            self._loopback.take(redirect)

    def _cancelled(self) -> None:
        if self._loopback is not None:
            self._loopback.fail(SignInError(f"signing in to {self._ctx.name!r} was cancelled"))

    def _denied(self, why: str) -> None:
        if self._loopback is not None:
            self._loopback.fail(SignInError(f"signing in to {self._ctx.name!r} failed: {why}"))

    def _refused(self, why: str) -> None:
        card = self._card
        if card is not None:
            kernel.post(partial(card.refused, why))

    def _end_card(self, failed: BaseException | None = None) -> None:
        card, self._card = self._card, None
        if card is None:
            return
        if failed is None:
            kernel.post(card.signed_in)
        elif not isinstance(failed, SignInError) or "cancelled" not in str(failed):
            kernel.post(partial(card.failed, _reason(failed)))

    # -- signing out ---------------------------------------------------------------------------------------
    def sign_out(self) -> None:
        """Forget the tokens here and in the store (our stores: the entry; yours: its `clear()`, if any)."""

        async def forget() -> None:
            async with self.context.lock:
                self.context.clear_tokens()
                self._initialized = False
                view = self.storage_view
                if isinstance(view, tokens.Bound):
                    view.forget()
                elif callable(getattr(view, "clear", None)):
                    result = view.clear()
                    if asyncio.iscoroutine(result):
                        await result

        RUNTIME.submit(forget()).result(timeout=30)


def _asks_to_sign_in(response: httpx2.Response) -> bool:
    """A 401, or a 403 asking for more scopes (step-up): the SDK then signs in again."""
    if response.status_code == 401:
        return True
    challenge = response.headers.get("www-authenticate", "")
    return response.status_code == 403 and "insufficient_scope" in challenge


def _duration(seconds: float) -> str:
    if seconds >= 120 and seconds % 60 == 0:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"


def _reason(exc: BaseException) -> str:
    """Why a sign-in failed, in words that quote no secret (the SDK's texts may quote a state)."""
    if isinstance(exc, SignInError):
        return str(exc).split(": ", 1)[-1]
    if isinstance(exc, asyncio.CancelledError | GeneratorExit):
        return "the sign-in was stopped"
    name = type(exc).__name__
    return {
        "OAuthFlowError": "the authorization server's answer did not check out",
        "OAuthTokenError": "no token was issued",
        "OAuthRegistrationError": "registering this notebook with the authorization server failed",
    }.get(name, f"client error: {name}")


_REFUSALS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (
            r"Authorization server metadata issuer mismatch: (\S+) != (\S+)$",
            "the authorization server's metadata names the issuer {0}, not {1} (RFC 8414: another server may "
            "be answering for it)",
        ),
        (
            r"Protected resource (\S+) does not match expected (\S+)$",
            "the server's protected resource metadata is for {0}, not {1} (RFC 9728)",
        ),
        (
            r"Protected resource metadata request failed: HTTP (\d+)",
            "its protected resource metadata could not be read (HTTP {0})",
        ),
        (
            r"Authorization response iss mismatch: (\S+) != (\S+)$",
            "the authorization response names the issuer {0}, not {1} (RFC 9207)",
        ),
        (
            r"Authorization response missing iss",
            "the authorization response does not name its issuer, "
            "which the authorization server said it would (RFC 9207)",
        ),
        (
            r"State parameter mismatch",
            "the authorization response belongs to another sign-in (its state does not match)",
        ),
        (r"No authorization code received", "the authorization response carries no code"),
        (
            r"Registration failed: (\d+)",
            "the authorization server refused to register this notebook (HTTP {0})",
        ),
        (
            r"Invalid registration response",
            "the authorization server's answer to registering this notebook is not valid",
        ),
        (
            r"registered the client with unsupported token_endpoint_auth_method ('[^']*')",
            "the authorization server registered this notebook for a way of authenticating it cannot use "
            "({0})",
        ),
        (
            r"registered the client for ('[^']*') but issued no client_secret",
            "the authorization server registered this notebook for {0} but issued no client secret",
        ),
        (
            r"unsupported token_endpoint_auth_method ('[^']*')",
            "this notebook's registration asks for a way of authenticating it cannot use ({0})",
        ),
        (r"Invalid token response", "the authorization server's token answer is not valid"),
    )
)


def refusal(exc: OAuthFlowError) -> str:
    """What the SDK refused and why, in our words: its texts may quote a `state` or an endpoint's body (a
    code, a token); only issuer and resource addresses and HTTP statuses are carried over, as text."""
    text = str(exc)
    for pattern, words in _REFUSALS:
        found = pattern.search(text)
        if found is not None:
            return words.format(*(clip_line(part, 200) for part in found.groups()))
    return _reason(exc)


def signin_error(exc: BaseException) -> SignInError | None:
    """The `SignInError` an exception carries (in a group, or as its cause or context), if any."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, SignInError):
            return current
        todo.extend(getattr(current, "exceptions", ()))  # an exception group
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def sign_out(auth: Any) -> None:
    """Sign out of what `provider` holds: ours forgets its store's entry too; an SDK provider its tokens."""
    if isinstance(auth, SignInProvider):
        auth.sign_out()
    elif isinstance(auth, OAuthClientProvider):
        auth.context.clear_tokens()
