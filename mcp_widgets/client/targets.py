"""What `connect` was given (a command, a URL, parameters, a server object) and the transports to it."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from mcp import StdioServerParameters

from ..core.redaction import scrub, typed_pattern

Mode = Literal["auto", "legacy"] | str
TransportName = Literal["auto", "stdio", "http", "sse"]


@dataclass
class Target:
    """What to connect to, resolved from `connect(target, ...)`; repr-safe (no secrets)."""

    kind: Literal["stdio", "http", "inproc", "transport"]
    name: str
    where: str
    """For reprs: the command's program, the URL without query or credentials, or the server's name."""
    params: StdioServerParameters | None = None
    url: str | None = None
    obj: Any = None
    generic: bool = False
    """`name` is a script's generic file name (`index.js`): the server's declared name replaces it."""
    hidden: tuple[str, ...] = field(default=(), repr=False)
    """Values a config substituted (`${env:NAME}`, `${input:id}`) into the command, args, `cwd` or URL: an
    error quoting them (a missing `cwd` is quoted whole) shows `[redacted]` instead (`scrubbed`)."""

    def hide(self, values: Sequence[str]) -> None:
        """Never show `values`: from now on `scrubbed` redacts them, and the name and `where` are scrubbed."""
        self.hidden = tuple(values)
        self.name, self.where = self.scrubbed(self.name), self.scrubbed(self.where)

    def scrubbed(self, text: str) -> str:
        """`text` with every hidden value (in the spellings escapers give it) as `[redacted]`."""
        pattern = typed_pattern(self.hidden) if self.hidden else None
        return str(scrub(text, pattern)) if pattern is not None else text


_INTERPRETERS = {"python", "python3", "node", "npx", "uv", "uvx", "deno", "bun", "bunx", "pipx", "docker"}
_SUBCOMMANDS = {"run", "exec", "tool", "x", "dlx"}
# Options of those launchers known to take no value. Any other option is taken to have one (the next
# word, unless written `--opt=value`), so a value (`-e TOKEN=…`, `--api-key sk-…`) is never the name.
_FLAGS = {
    "-y",
    "--yes",
    "-q",
    "--quiet",
    "-v",
    "--verbose",
    "-i",
    "-t",
    "-it",
    "-ti",
    "-d",
    "--rm",
    "--init",
    "--interactive",
    "--tty",
    "--detach",
    "--privileged",
    "--read-only",
    "-u",
    "-B",
    "-E",
    "-I",
    "-s",
    "-S",
    "-O",
    "-OO",
    "-P",
    "-A",
    "--no-cache",
    "--offline",
    "--isolated",
    "--no-project",
    "--frozen",
    "--locked",
    "--refresh",
    "--no-sync",
    "--no-install",
    "--ignore-existing",
    "--no-warnings",
    "--enable-source-maps",
    "--bun",
    "--silent",
}
_BOOLEAN_PREFIXES = ("--allow-", "--deny-", "--no-", "--unstable", "--experimental-", "--inspect")
_CODE_OPTIONS = {"-c", "-e", "--eval", "-p", "--print"}
"""Interpreters' options whose value is code (python -c, node -e): such a command is named by its program."""
_NAME_OPTIONS = {"-m", "--from", "--spec", "--package"}
"""Options whose value names what runs (a module or package)."""


def _plausible_name(word: str) -> bool:
    """A program, package, module, path or image name, not code or an assignment."""
    return bool(word) and "=" not in word and not any(c.isspace() or c in "'\"`;$(){}<>|&" for c in word)


def _command_name(argv: Sequence[str]) -> str:
    """A short, secret-free name for a command: the program, or the package or script a launcher runs."""
    program = PurePath(argv[0]).name
    base = program.split(".exe")[0]
    rest = list(argv[1:])
    if base == "env":  # env VAR=value ... program
        while rest and ("=" in rest[0] or rest[0].startswith("-")):
            rest.pop(0)
        return _command_name(rest) if rest else program
    if not (base.rstrip("0123456789.") in _INTERPRETERS or base in _INTERPRETERS):
        return program
    runs_code = base.rstrip("0123456789.") in ("python", "node", "deno", "bun")
    while rest:
        arg = rest.pop(0)
        if runs_code and arg in _CODE_OPTIONS:
            return program
        if arg in _NAME_OPTIONS or arg.split("=", 1)[0] in _NAME_OPTIONS:
            value = arg.split("=", 1)[1] if "=" in arg else (rest.pop(0) if rest else "")
            return _word_name(value) if _plausible_name(value) else program
        if arg.startswith("-"):
            if "=" not in arg and arg not in _FLAGS and not arg.startswith(_BOOLEAN_PREFIXES) and rest:
                rest.pop(0)  # its value
            continue
        if arg in _SUBCOMMANDS:
            continue
        return _word_name(arg) if _plausible_name(arg) else program
    return program


_GENERIC_STEMS = {"index", "main", "server", "cli", "app", "__main__", "mcp", "stdio"}
"""Script names that say nothing of the server (`node …/dist/index.js`): its package names it instead."""


def _word_name(word: str) -> str:
    if word.startswith("@"):
        return word  # a scoped npm package, not a path
    path = PurePath(word)
    if path.stem.lower() not in _GENERIC_STEMS or not path.suffix:
        return path.name
    parts = path.parts[:-1]
    if "node_modules" in parts:  # …/node_modules/[@scope/]package/dist/index.js: the package
        inside = parts[len(parts) - parts[::-1].index("node_modules") :]
        package = inside[:2] if inside[:1] and inside[0].startswith("@") else inside[:1]
        if package:
            return "/".join(package)
    return path.name


def _is_generic(name: str) -> bool:
    """A name that is only a generic script's file name: the server's own name says more."""
    path = PurePath(name)
    return not name.startswith("@") and bool(path.suffix) and path.stem.lower() in _GENERIC_STEMS


def _url_name(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    host = parts.hostname or parts.scheme.lower()  # never the URL itself: its query may hold a token
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    where = f"{parts.scheme.lower()}://{host}{parts.path}" + ("?…" if parts.query else "")
    return host, where


def _is_http_url(text: str) -> bool:
    """An http(s) URL, in any letter case (`HTTP://host/mcp` is no command line)."""
    return text.strip().lower().startswith(("http://", "https://"))


def resolve_target(target: Any, env: Mapping[str, str] | None) -> Target:
    if isinstance(target, str) and _is_http_url(target):
        url = target.strip()
        host, where = _url_name(url)
        return Target("http", host, where, url=url)
    if isinstance(target, (str, list, tuple)):
        argv = shlex.split(target) if isinstance(target, str) else [str(a) for a in target]
        if not argv:
            raise ValueError("an empty command line")
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(env) if env else None)
        name = _command_name(argv)
        return Target("stdio", name, PurePath(argv[0]).name, params=params, generic=_is_generic(name))
    if isinstance(target, StdioServerParameters):
        if env:
            target = target.model_copy(update={"env": {**(target.env or {}), **env}})
        argv = [target.command, *target.args]
        name = _command_name(argv)
        return Target("stdio", name, PurePath(target.command).name, params=target, generic=_is_generic(name))
    from mcp.server import Server as LowLevelServer
    from mcp.server.mcpserver import MCPServer

    if isinstance(target, (MCPServer, LowLevelServer)):
        name = str(getattr(target, "name", None) or "in-process")
        return Target("inproc", name, f"in-process {name!r}", obj=target)
    if hasattr(target, "__aenter__"):  # an SDK Transport
        return Target("transport", type(target).__name__, type(target).__name__, obj=target)
    raise TypeError(
        f"cannot connect to a {type(target).__name__}: pass a command line, an http(s) URL, "
        "StdioServerParameters or an MCP server object"
    )


@contextlib.asynccontextmanager
async def watched(
    transport: Any, on_end: Callable[[], None], on_garbage: Callable[[Exception], None] | None = None
) -> Any:
    """`transport`, telling `on_end` when the server's side of it ends (a stdio server exiting).

    On 2026-07-28 nothing is pending at the server while a person thinks, so without this a dead server is
    only noticed when the answer is sent. The session's read loop always waits on the read stream, so the
    end is seen as it happens.
    """
    async with transport as (read, write):
        yield _EndWatched(read, on_end, on_garbage), write


class StreamProxy:
    """A transport stream seen through: every attribute is the stream's (e.g. `last_context`, which the SDK
    looks up on its streams), with no task or buffer in between (each would cost an event-loop turn per
    message). Subclasses change `receive` or `send`."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def receive(self) -> Any:
        return await self._stream.receive()

    def __aiter__(self: P) -> P:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self: P) -> P:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        suppress: bool | None = await self._stream.__aexit__(*exc)
        return suppress


P = TypeVar("P", bound=StreamProxy)


class _EndWatched(StreamProxy):
    """A read stream that calls `on_end` when it ends, and `on_garbage` with each line that was not JSON-RPC
    (the SDK's stdio transport passes its parse error on; `on_garbage` may raise to end the connection)."""

    def __init__(
        self, stream: Any, on_end: Callable[[], None], on_garbage: Callable[[Exception], None] | None = None
    ) -> None:
        super().__init__(stream)
        self._on_end = on_end
        self._on_garbage = on_garbage

    async def receive(self) -> Any:
        import anyio

        try:
            item = await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        if isinstance(item, Exception) and self._on_garbage is not None:
            self._on_garbage(item)
        return item


class NotJsonRpc(Exception):
    """A stdio server wrote a line to stdout that is not JSON-RPC before the handshake ended (a banner, a
    log line): the message quotes it, so the person sees what the server printed."""


def quoted_line(error: Exception, limit: int = 200) -> str:
    """The stdout line the SDK failed to parse, as a repr (text, never run), clipped; from pydantic's
    error (its input is the whole line)."""
    import json

    line: Any = None
    errors = getattr(error, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            line = errors()[0].get("input")
    if line is None:
        return "(unreadable)"
    if not isinstance(line, str):
        with contextlib.suppress(Exception):
            line = json.dumps(line)
    text = str(line)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


@contextlib.asynccontextmanager
async def http_transport(
    url: str,
    headers: Mapping[str, str],
    auth: Any,
    *,
    sse: bool,
    on_refusal: Callable[[str], None] | None = None,
    on_response: Callable[[Any], None] | None = None,
) -> Any:
    import httpx2

    async def seen(response: Any) -> None:
        if on_response is not None:
            on_response(response)
        await refused(response)

    async def refused(response: Any) -> None:
        """A 4xx/5xx answer: its status and its body's first line, for the connect error (the SDK reports
        only "Server returned an error response"). 401 is the sign-in's business."""
        if on_refusal is None or response.status_code < 400 or response.status_code == 401:
            return
        try:
            await response.aread()
            first = next((line.strip() for line in response.text.splitlines() if line.strip()), "")
        except Exception:
            first = ""
        status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        on_refusal(status + (f": {first[:200]!r}" if first else ""))

    hdrs = dict(headers)
    if isinstance(auth, str):
        hdrs["Authorization"] = f"Bearer {auth}"
        auth = None
    # A person may think for minutes while a response stream stays open: no short read timeout.
    timeout = httpx2.Timeout(30.0, read=3600.0)
    if sse:
        from mcp.client.sse import sse_client

        async with sse_client(url, headers=hdrs or None, auth=auth, sse_read_timeout=3600.0) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(
            headers=hdrs, auth=auth, timeout=timeout, event_hooks={"response": [seen]}
        ) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams
