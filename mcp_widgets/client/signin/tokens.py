"""Where sign-in credentials live: in memory (per kernel, the default), a 0600 JSON file in the Jupyter data
directory (`token_store="file"`), the system keyring (`"keyring"`, the `mcp-widgets[keyring]` extra), or any
object with the SDK's `TokenStorage` protocol.

Our stores keep one entry per (resource, issuer), as the spec asks of persisted credentials: the tokens and
the client registration. `Bound` is what one connection's provider sees (the SDK's protocol has no key):
the resource is known at connect time, the issuer once discovery found it; before that (a new kernel
loading its stored token), the issuer this resource last signed in with. Nothing here logs or shows a value.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["Bound", "FileStore", "KeyringStore", "MemoryStore", "Store", "resolve_store"]

Entry = dict[str, Any]
"""{"tokens": {...} | None, "client_info": {...} | None}: JSON, as the SDK's models dump it."""


class Store(Protocol):
    """Entries keyed by (resource, issuer); `current` names the issuer a resource last used."""

    def load(self, resource: str) -> dict[str, Any]: ...

    def save(self, resource: str, entries: dict[str, Any]) -> None: ...


class MemoryStore:
    """The default: this kernel's memory, gone when it restarts."""

    def __init__(self) -> None:
        self._data: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def load(self, resource: str) -> dict[str, Any]:
        with self._lock:
            entries: dict[str, Any] = json.loads(json.dumps(self._data.get(resource, {})))
            return entries

    def save(self, resource: str, entries: dict[str, Any]) -> None:
        with self._lock:
            if entries:
                self._data[resource] = json.loads(json.dumps(entries))
            else:
                self._data.pop(resource, None)

    def __repr__(self) -> str:
        return f"<MemoryStore resources={len(self._data)}>"


def default_path() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "mcp_widgets" / "tokens.json"


class FileStore:
    """A JSON file readable by its owner only (0600), in the Jupyter data directory by default."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.Lock()

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def load(self, resource: str) -> dict[str, Any]:
        with self._lock:
            entries = self._read().get(resource)
        return entries if isinstance(entries, dict) else {}

    def save(self, resource: str, entries: dict[str, Any]) -> None:
        with self._lock:
            data = self._read()
            if entries:
                data[resource] = entries
            else:
                data.pop(resource, None)
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Written whole to a 0600 file beside it, then moved over: never a moment readable by others.
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tokens-", suffix=".json")
            try:
                os.fchmod(fd, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

    def __repr__(self) -> str:
        return f"<FileStore {str(self.path)!r}>"


class KeyringStore:
    """The system keyring (needs the `keyring` package: `pip install mcp-widgets[keyring]`)."""

    SERVICE = "mcp-widgets"

    def __init__(self) -> None:
        try:
            import keyring
        except ImportError:
            raise ImportError(
                'token_store="keyring" needs the keyring package: pip install "mcp-widgets[keyring]"'
            ) from None
        self._keyring: Any = keyring

    def load(self, resource: str) -> dict[str, Any]:
        raw = self._keyring.get_password(self.SERVICE, resource)
        try:
            entries = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        return entries if isinstance(entries, dict) else {}

    def save(self, resource: str, entries: dict[str, Any]) -> None:
        if entries:
            self._keyring.set_password(self.SERVICE, resource, json.dumps(entries))
        else:
            with contextlib.suppress(Exception):
                self._keyring.delete_password(self.SERVICE, resource)

    def __repr__(self) -> str:
        return "<KeyringStore>"


MEMORY = MemoryStore()
"""The kernel's default store, shared by its connections (a second `connect` to a server stays signed in)."""


def check_store(token_store: Any) -> None:
    """Raise as `resolve_store` would for a `token_store=` it cannot take (nothing is opened)."""
    if token_store is None or token_store in ("memory", "file", "keyring"):
        return
    if isinstance(token_store, str):
        raise ValueError(f'token_store must be None, "file", "keyring" or a TokenStorage: {token_store!r}')
    needed = ("get_tokens", "set_tokens", "get_client_info", "set_client_info")
    if not all(callable(getattr(token_store, name, None)) for name in needed):
        raise TypeError("token_store must have the SDK's TokenStorage methods: " + ", ".join(needed))


def check_scopes(scopes: Any) -> None:
    """`scopes=`: None, one space-separated str, or a sequence of str."""
    if scopes is None or isinstance(scopes, str):
        return
    if isinstance(scopes, (bytes, Mapping)) or not isinstance(scopes, Iterable):
        raise TypeError(f"scopes must be a str or a list of str, not {type(scopes).__name__}")
    bad = [s for s in scopes if not isinstance(s, str) or not s or any(c.isspace() for c in s)]
    if bad:
        raise ValueError(f"scopes must be non-empty strings without spaces, not {bad!r}")


def resolve_store(token_store: Any) -> Store | Any:
    """`None` -> memory, "file" / "keyring" -> ours; anything else is taken as a `TokenStorage` as it is."""
    if token_store is None or token_store == "memory":
        return MEMORY
    if token_store == "file":
        return FileStore()
    if token_store == "keyring":
        return KeyringStore()
    if isinstance(token_store, str):
        raise ValueError(f'token_store must be None, "file", "keyring" or a TokenStorage: {token_store!r}')
    needed = ("get_tokens", "set_tokens", "get_client_info", "set_client_info")
    if not all(callable(getattr(token_store, name, None)) for name in needed):
        raise TypeError("token_store must have the SDK's TokenStorage methods: " + ", ".join(needed))
    return token_store


_CURRENT = "current"


class Bound:
    """One connection's view of a `Store`: the SDK's `TokenStorage` for (resource, the issuer in use)."""

    def __init__(self, store: Store, resource: str, issuer: Callable[[], str | None]) -> None:
        self.store = store
        self.resource = resource
        self._issuer = issuer

    def _key(self, entries: dict[str, Any]) -> str:
        issuer = self._issuer()
        if issuer:
            return issuer
        current = entries.get(_CURRENT)
        return current if isinstance(current, str) else ""

    def _entry(self) -> Entry:
        entries = self.store.load(self.resource)
        entry = entries.get(self._key(entries))
        return entry if isinstance(entry, dict) else {}

    def _update(self, **values: Any) -> None:
        entries = self.store.load(self.resource)
        key = self._key(entries)
        entry = entries.get(key)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry.update(values)
        entries[key] = entry
        entries[_CURRENT] = key
        self.store.save(self.resource, entries)

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._entry().get("tokens")
        try:
            return OAuthToken.model_validate(raw) if raw else None
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        # With when it expires, so that a new kernel refreshes it first (the SDK keeps that in memory only).
        expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        self._update(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires_at)

    def expires_at(self) -> float | None:
        """When the stored access token expires (wall clock), if known."""
        value = self._entry().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self._entry().get("client_info")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._update(client_info=client_info.model_dump(mode="json", exclude_none=True))

    def forget(self) -> None:
        """Sign out: the entry of the issuer in use goes (the client registration too)."""
        entries = self.store.load(self.resource)
        key = self._key(entries)
        entries.pop(key, None)
        if entries.get(_CURRENT) == key:
            entries.pop(_CURRENT)
        self.store.save(self.resource, {k: v for k, v in entries.items() if k != _CURRENT or v in entries})

    def __repr__(self) -> str:
        return f"<tokens for {self.resource!r} in {self.store!r}>"
