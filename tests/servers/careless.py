"""A careless server (2025-11-25) that lets what it was answered slip out to the client's SDK, which logs
what it cannot parse. `python careless.py` serves it over stdio as raw JSON-RPC (an SDK server cannot print
to its stdout: the SDK keeps it for the protocol); `python careless.py http` serves the same tools, built
with the SDK's `MCPServer`, over streamable HTTP (it prints `PORT <n>` first).

`ask(how)` asks for a name, then, as `how` says:
- "print" (stdio): prints a debug line quoting it on stdout (`got answer <name>`), which is not JSON-RPC;
- "params" (stdio): sends a notification whose params is the name (not an object: it does not parse);
- "progress": sends a progress notification whose token is the name and that has no progress (it parses
  as JSON-RPC, then fails the SDK session's validation);
then answers "ok". `rename` asks for a name, then lists from then on a tool named after it (its title,
description and input schema quote it too), and a prompt, a resource and a template doing the same, and
says so (`notifications/tools/list_changed` and the others); the tool, the prompt and the resource answer
only to the names they were given (so a test sees that the client sent those).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ASK = {
    "name": "ask",
    "description": "Asks for a name, then lets it slip out as `how` says.",
    "inputSchema": {"type": "object", "properties": {"how": {"type": "string"}}},
}
RENAME = {
    "name": "rename",
    "description": "Asks for a name, then lists a tool, a prompt and resources named after it.",
    "inputSchema": {"type": "object", "properties": {}},
}
CHANGED = ("tools", "prompts", "resources")


class Listed:
    """What the server lists: more once `rename` was answered."""

    def __init__(self) -> None:
        self.name: str | None = None

    def tools(self) -> list[dict[str, Any]]:
        if self.name is None:
            return [ASK, RENAME]
        n = self.name
        schema = {"type": "object", "properties": {n: {"type": "string", "description": f"your {n}"}}}
        greet = {"name": f"greet_{n}", "title": f"Greet {n}", "description": f"Greets {n}."}
        return [ASK, RENAME, {**greet, "inputSchema": schema}]

    def prompts(self) -> list[dict[str, Any]]:
        if self.name is None:
            return []
        n = self.name
        argument = {"name": "topic", "description": f"what about {n}", "required": False}
        return [
            {
                "name": f"about_{n}",
                "title": f"About {n}",
                "description": f"Talks about {n}.",
                "arguments": [argument],
            }
        ]

    def resources(self) -> list[dict[str, Any]]:
        if self.name is None:
            return []
        n = self.name
        return [{"uri": f"notes://{n}", "name": f"note_{n}", "description": f"Notes on {n}."}]

    def templates(self) -> list[dict[str, Any]]:
        if self.name is None:
            return []
        n = self.name
        return [{"uriTemplate": f"files://{n}/{{path}}", "name": f"files_{n}", "title": f"Files of {n}"}]


# -- stdio: raw JSON-RPC -----------------------------------------------------------------------------------

_write = threading.Lock()
_replies: dict[str, dict[str, Any]] = {}
_arrived = threading.Condition()
_listed = Listed()


def send(message: dict[str, Any] | str) -> None:
    line = message if isinstance(message, str) else json.dumps({"jsonrpc": "2.0", **message})
    with _write:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def ask_name(rid: Any) -> str:
    question = f"q-{rid}"
    form = {"mode": "form", "message": "Who are you?", "requestedSchema": SCHEMA}
    send({"id": question, "method": "elicitation/create", "params": form})
    with _arrived:
        while question not in _replies:
            _arrived.wait(0.05)
        reply = _replies.pop(question)
    return str(((reply.get("result") or {}).get("content") or {}).get("name"))


def call(rid: Any, params: dict[str, Any]) -> None:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name not in ("ask", "rename"):  # the tool named after the answer: only by the name it was given
        ok = _listed.name is not None and name == f"greet_{_listed.name}"
        text = "called the tool named after you" if ok else "no such tool"
        send({"id": rid, "result": {"content": [{"type": "text", "text": text}], "isError": not ok}})
        return
    value = ask_name(rid)
    if name == "ask":
        how = arguments.get("how", "print")
        token = (params.get("_meta") or {}).get("progressToken", value)
        if how == "print":
            send(f"got answer {value}")
        elif how == "params":
            send({"method": "notifications/message", "params": value})
        elif how == "progress":
            send({"method": "notifications/progress", "params": {"progressToken": value, "echo": token}})
        text = "ok"
    else:
        _listed.name = value
        for kind in CHANGED:
            send({"method": f"notifications/{kind}/list_changed"})
        text = "renamed"
    send({"id": rid, "result": {"content": [{"type": "text", "text": text}]}})


def handle(message: dict[str, Any]) -> None:
    method, rid = message.get("method"), message.get("id")
    if method is None:
        with _arrived:
            _replies[str(rid)] = message
            _arrived.notify_all()
        return
    if rid is None:
        return
    caps = {kind: {"listChanged": True} for kind in CHANGED}
    answers: dict[str, Any] = {
        "initialize": {
            "protocolVersion": "2025-11-25",
            "capabilities": caps,
            "serverInfo": {"name": "careless", "version": "0"},
        },
        "tools/list": {"tools": _listed.tools()},
        "prompts/list": {"prompts": _listed.prompts()},
        "resources/list": {"resources": _listed.resources()},
        "resources/templates/list": {"resourceTemplates": _listed.templates()},
        "ping": {},
    }
    n = _listed.name
    params = message.get("params") or {}
    if n is not None and method == "prompts/get" and params.get("name") == f"about_{n}":
        said = {"role": "user", "content": {"type": "text", "text": "the prompt named after you"}}
        answers[method] = {"messages": [said]}
    if n is not None and method == "resources/read" and params.get("uri") == f"notes://{n}":
        answers[method] = {"contents": [{"uri": params["uri"], "text": "the notes named after you"}]}
    if method == "tools/call":
        threading.Thread(target=call, args=(rid, message.get("params") or {}), daemon=True).start()
    elif method in answers:
        send({"id": rid, "result": answers[method]})
    else:
        send({"id": rid, "error": {"code": -32601, "message": f"no {method}"}})


# -- streamable HTTP: the SDK's server ---------------------------------------------------------------------


def build_server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("careless")

    @server.tool(description=ASK["description"])
    async def ask(ctx: Context[Any, Any], how: str = "progress") -> str:
        answer = await ctx.session.elicit_form("Who are you?", SCHEMA, related_request_id=ctx.request_id)
        value = str((answer.content or {}).get("name"))
        if how == "progress":  # raw: a typed notification could not be malformed
            await ctx.session._request_outbound.notify("notifications/progress", {"progressToken": value})
        return "ok"

    return server


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        import anyio
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)  # connections wait in the backlog until uvicorn serves: usable once printed
        config = uvicorn.Config(build_server().streamable_http_app(host="127.0.0.1"), log_level="warning")
        print(f"PORT {sock.getsockname()[1]}", flush=True)
        anyio.run(uvicorn.Server(config).serve, [sock])
    else:
        for line in sys.stdin:
            if line.strip():
                handle(json.loads(line))
