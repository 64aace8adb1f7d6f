"""`%mcp`: connect to MCP servers and call them from one line (`%load_ext mcp_widgets`).

    %mcp connect [OPTIONS] [NAME] TARGET...    connect; the Server is stored in the notebook as NAME
    %mcp tools|resources|prompts|info [NAME]   what a server offers, as tables
    %mcp call [NAME.]TOOL [key=value ...]      call a tool; its questions appear as forms in the cell
    %mcp prompt [NAME.]PROMPT [key=value ...]  get a prompt
    %mcp read [NAME] URI                       read a resource
    %mcp close [NAME]                          disconnect
    %mcp servers                               the servers connected with %mcp
    %mcp help                                  this text

TARGET is a command line (run over stdio, quoted as in a shell) or an http(s) URL. NAME is the first word
after `connect` when that word is a Python identifier; otherwise (a URL, a path) the server is stored as
`mcp`. So `%mcp connect demo python -m mcp_widgets.demo` stores `demo`, `%mcp connect https://host/mcp`
stores `mcp`. Connecting a NAME again closes the server it held. OPTIONS: `--legacy` (force the 2025-11-25
protocol), `--timeout SECONDS`, `--handler decline|cancel|accept_defaults` (answer every question with that
policy instead of a form).

Commands without NAME use the server most recently connected with `%mcp connect`. `NAME.TOOL` names the
server only when NAME holds a server; otherwise the whole word is the tool's name (names may contain dots).

Arguments are `key=value` words; a value is read as JSON when it parses (`n=3`, `flag=true`,
`tags=["a", "b"]`, `schema={"type": "object"}`) and as a string otherwise (`city=Paris`). Quote values with
spaces: `text='hello world'` or `text="hello world"`. Spaces inside JSON brackets need no quotes.

As in every line magic, IPython first expands `$name` and `{expression}` (JSON objects pass unchanged):
`%mcp connect demo {sys.executable} -m mcp_widgets.demo` runs the demo with the kernel's own Python (a
plain `python` is whichever one PATH finds).

`call`, `prompt`, `read`, and the listings return their result, so the cell displays it. A mistake (an
unknown server, a malformed argument, a server error) is reported as one line, without a traceback.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from .client import Server, connect_sync
from .core.exceptions import MCPWidgetsError

__all__ = ["MCPMagics", "load_ipython_extension", "parse_arguments", "split_words"]

DEFAULT_NAME = "mcp"
"""Where `%mcp connect` stores a server when no NAME is given."""


def load_ipython_extension(ipython: Any) -> None:
    """Register `%mcp` (run by `%load_ext mcp_widgets` through the package's own hook)."""
    ipython.register_magics(MCPMagics)


@magics_class
class MCPMagics(Magics):
    """The `%mcp` line magic; see the module docstring for its commands."""

    def __init__(self, shell: Any = None) -> None:
        super().__init__(shell)
        self._last: str | None = None
        """The NAME most recently connected: the server commands without NAME use."""
        self._names: list[str] = []
        """Every NAME `%mcp connect` stored (for `%mcp servers`)."""

    @line_magic
    def mcp(self, line: str) -> Any:
        """Connect to MCP servers and call them: `%mcp help` lists the commands."""
        command, _, rest = line.strip().partition(" ")
        commands: dict[str, Callable[[str], Any]] = {
            "connect": self._connect,
            "tools": lambda r: self._server(r).tools,
            "resources": lambda r: self._server(r).resources,
            "prompts": lambda r: self._server(r).prompts,
            "info": lambda r: self._server(r).info,
            "call": self._call,
            "prompt": self._prompt,
            "read": self._read,
            "close": self._close,
            "servers": self._servers,
        }
        if command in ("", "help", "-h", "--help"):
            print(__doc__)
            return None
        run = commands.get(command)
        if run is None:
            raise UsageError(f"%mcp: unknown command {command!r}; one of {', '.join(commands)}, help")
        try:
            return run(rest.strip())
        except MCPWidgetsError as exc:
            # Our errors already say what went wrong, and never quote what a person typed.
            raise UsageError(f"%mcp {command}: {exc}") from None

    # -- commands ------------------------------------------------------------------------------------------

    def _connect(self, rest: str) -> None:
        try:
            words = shlex.split(rest)
        except ValueError as exc:
            raise UsageError(f"%mcp connect: {exc}") from None
        options: dict[str, Any] = {}
        while words and words[0].startswith("--"):
            option = words.pop(0)
            if option == "--legacy":
                options["mode"] = "legacy"
            elif option == "--timeout":
                options["timeout"] = _number(option, words.pop(0) if words else "")
            elif option == "--handler":
                options["handler"] = _policy(words.pop(0) if words else "")
            else:
                raise UsageError(
                    f"%mcp connect: unknown option {option}; one of --legacy, --timeout, --handler"
                )
        name = DEFAULT_NAME
        if words and words[0].isidentifier():
            name = words.pop(0)
        if not words:
            raise UsageError("%mcp connect: give what to connect to: %mcp connect [NAME] COMMAND... or URL")
        if words[0].startswith("-"):
            raise UsageError(
                f"%mcp connect: {name!r} was read as the NAME, and {words[0]!r} is no command: "
                f"write %mcp connect NAME {name} {' '.join(words)}"
            )
        url = len(words) == 1 and words[0].lower().startswith(("http://", "https://"))
        target: Any = words[0] if url else words
        old = self._user_ns.get(name)
        if isinstance(old, Server):
            old.close()  # replaced (first: an open server keeps its name): do not leave its process running
        try:
            server = connect_sync(target, name=name if name != DEFAULT_NAME else None, **options)
        except (ValueError, TypeError) as exc:  # a target connect() cannot use
            raise UsageError(f"%mcp connect: {exc}") from None
        self._user_ns[name] = server
        self._last = name
        if name not in self._names:
            self._names.append(name)
        offers = (
            f"{len(server.tools)} tools, {len(server.resources)} resources, {len(server.prompts)} prompts"
        )
        declared = server.declared_name or server.name
        print(f"connected to {declared!r} (protocol {server.protocol_version}): {offers}; stored as {name}")

    def _call(self, rest: str) -> Any:
        server, tool, arguments = self._request(rest, "call", "TOOL")
        return server.call_tool_sync(tool, arguments)

    def _prompt(self, rest: str) -> Any:
        server, prompt, arguments = self._request(rest, "prompt", "PROMPT")
        # Prompt arguments are strings on the wire: a JSON value is sent as its text.
        texts = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
        return server.get_prompt_sync(prompt, texts)

    def _read(self, rest: str) -> Any:
        words = split_words(rest, "read")
        if len(words) == 2:
            return self._server(words[0]).read_resource_sync(_unquote(words[1]))
        if len(words) == 1:
            return self._server("").read_resource_sync(_unquote(words[0]))
        raise UsageError("%mcp read: write %mcp read [NAME] URI")

    def _close(self, rest: str) -> None:
        server = self._server(rest)
        server.close()
        print(f"closed {server.name!r}")

    def _servers(self, rest: str) -> None:
        shown = False
        for name in self._names:
            server = self._user_ns.get(name)
            if isinstance(server, Server):
                mark = " (default)" if name == self._last else ""
                print(f"{name}{mark}: {server!r}")
                shown = True
        if not shown:
            print("no servers: connect one with %mcp connect [NAME] TARGET...")

    # -- helpers -------------------------------------------------------------------------------------------

    @property
    def _user_ns(self) -> dict[str, Any]:
        """The notebook's variables, where servers are stored (a magic is always registered on a shell)."""
        if self.shell is None:
            raise UsageError("%mcp runs in an IPython shell")
        ns: dict[str, Any] = self.shell.user_ns
        return ns

    def _server(self, name: str) -> Server:
        """The server stored under `name` (default: the one connected last, else `mcp`)."""
        given = name.strip()
        name = given or self._last or DEFAULT_NAME
        if not given and not isinstance(self._user_ns.get(name), Server):
            raise UsageError("%mcp: no server connected: %mcp connect [NAME] TARGET... (or name one)")
        if not name.isidentifier():
            raise UsageError(f"%mcp: {name!r} is not a server name")
        server = self._user_ns.get(name)
        if not isinstance(server, Server):
            what = "nothing" if server is None else f"a {type(server).__name__}"
            raise UsageError(
                f"%mcp: {name} holds {what}, not a server: connect with %mcp connect {name} TARGET..."
            )
        return server

    def _request(self, rest: str, command: str, what: str) -> tuple[Server, str, dict[str, Any]]:
        words = split_words(rest, command)
        if not words:
            raise UsageError(f"%mcp {command}: write %mcp {command} [NAME.]{what} [key=value ...]")
        head, arguments = words[0], parse_arguments(words[1:], command)
        prefix, dot, tail = head.partition(".")
        if dot and tail and isinstance(self._user_ns.get(prefix), Server):
            return self._server(prefix), tail, arguments
        return self._server(""), head, arguments


def split_words(text: str, command: str = "") -> list[str]:
    """Split on spaces outside quotes and outside JSON brackets; quotes stay in the words.

    `a={"b": [1, 2]} c='x y'` gives `['a={"b": [1, 2]}', "c='x y'"]`.
    """
    words: list[str] = []
    current: list[str] = []
    quote = ""
    depth = 0
    escaped = False
    for char in text:
        if quote:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char.isspace() and depth == 0:
            if current:
                words.append("".join(current))
                current = []
            continue
        current.append(char)
    if quote:
        raise UsageError(f"%mcp {command}: a quote ({quote}) is never closed")
    if current:
        words.append("".join(current))
    return words


def parse_arguments(words: list[str], command: str = "call") -> dict[str, Any]:
    """`key=value` words to a dict: values read as JSON when they parse, else as strings."""
    arguments: dict[str, Any] = {}
    for position, word in enumerate(words, 1):
        key, eq, value = word.partition("=")
        if not eq or not key or any(c in key for c in "'\"{}[]"):
            # Named by position: the word itself may hold something private.
            raise UsageError(f"%mcp {command}: arguments are key=value words; argument {position} is not one")
        if key in arguments:
            raise UsageError(f"%mcp {command}: the argument {key} is given twice")
        arguments[key] = _value(value)
    return arguments


def _value(text: str) -> Any:
    if len(text) >= 2 and text[0] == text[-1] == "'":
        text = text[1:-1]  # single quotes only group words: the inside is read like an unquoted value
    try:
        return json.loads(text, parse_constant=_not_json)
    except ValueError:
        return text


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: keep such words as strings


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _number(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"%mcp connect: {option} takes a number of seconds") from None
    if value <= 0:
        raise UsageError(f"%mcp connect: {option} takes a positive number of seconds")
    return value


def _policy(text: str) -> Any:
    from .handlers import POLICIES

    policy = POLICIES.get(text.lower())
    if policy is None:
        raise UsageError(f"%mcp connect: --handler takes one of {', '.join(sorted(POLICIES))}")
    return policy
