"""A raw JSON-RPC MCP server over stdio (2025-11-25) doing what the SDK's servers never do, on a script.

Its one tool, `play`, takes `{"ops": [...]}` and runs them in order, so a test can send event orders such as
duplicate request ids, a question withdrawn before or after its answer, a completion after the call ended,
a response nobody asked for, a line that is not JSON, a flood of questions, or the server exiting mid-call.
Ops (each a dict with "op"): elicit (id, message, schema), await (id), cancel (id), progress / log (text,
echo), result / error (text, echo, code), report (a result of every answer's action and content), again
(repeat the call's completion), stray, garbage, sleep (s), exit, flood (n, message, schema: n questions at
once, then all their answers awaited), elicit_url (id, message, url, elicitationId: a URL-mode question),
complete (elicitationId: its elicitation/complete), ping (id: a ping of the server's, not awaited);
any op's "pad" (n) adds n characters after its text.
An elicit op's "meta" is sent as the request's `_meta`; with `--apps` the server declares app-rendered
questions and serves the apps of tests/servers/app_question.py (`resources/read`), and lists `play_task`: the
same script run as a 2025-11-25 task (`execution.taskSupport: "required"`), its result or error that of
`tasks/result`; each question goes out through a pending `tasks/result` with the task's related-task
metadata, the task `input_required` until it is answered.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.servers import app_question
from tests.servers.hostile import echo

APPS = "--apps" in sys.argv
APP_DOCUMENTS = {
    app_question.PICKER: app_question.PICKER_HTML,
    app_question.SILENT: app_question.SILENT_HTML,
    app_question.WRONG_TYPE: app_question.PICKER_HTML,
}
NOT_APPS = {app_question.WRONG_TYPE: "text/html"}
"""Documents served with another MIME type than an app's: no app to show."""

RELATED = "io.modelcontextprotocol/related-task"
STAMP = "2026-01-01T00:00:00Z"
_write = threading.Lock()
_replies: dict[Any, dict[str, Any]] = {}
_arrived = threading.Condition()

TOOL = {
    "name": "play",
    "description": "Plays a script of raw JSON-RPC events.",
    "inputSchema": {"type": "object", "properties": {"ops": {"type": "array"}}, "required": ["ops"]},
}
TASK_TOOL = {**TOOL, "name": "play_task", "execution": {"taskSupport": "required"}}


class Task:
    """A `play_task` call's task: its status, and the answer `tasks/result` gives once the script ends."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.status = "working"
        self.outcome: dict[str, Any] | None = None
        self.fetching = threading.Event()
        """Set once `tasks/result` is pending: the task's questions go out through it."""
        self.ended = threading.Event()

    def state(self) -> dict[str, Any]:
        return {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": STAMP,
            "lastUpdatedAt": STAMP,
            "ttl": 60_000,
            "pollInterval": 100,
        }

    def finish(self, outcome: dict[str, Any]) -> None:
        if not self.ended.is_set():
            self.outcome = outcome
            self.status = "failed" if "error" in outcome else "completed"
            self.ended.set()

    def result(self, rid: Any) -> None:
        """Answer the `tasks/result` `rid` once the task ended (its questions are sent meanwhile)."""
        self.fetching.set()
        if self.ended.wait(60) and self.outcome is not None:
            send({"id": rid, **self.outcome})
        else:
            send({"id": rid, "error": {"code": -32603, "message": "the task did not end"}})


_tasks: dict[str, Task] = {}


def send(message: dict[str, Any] | str) -> None:
    line = message if isinstance(message, str) else json.dumps({"jsonrpc": "2.0", **message})
    with _write:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def wait_reply(rid: Any, timeout: float = 30.0) -> dict[str, Any] | None:
    end = time.monotonic() + timeout
    with _arrived:
        while json.dumps(rid) not in _replies and time.monotonic() < end:
            _arrived.wait(0.05)
        return _replies.pop(json.dumps(rid), None)


def play(call_id: Any, params: dict[str, Any], task: Task | None = None) -> None:
    token = (params.get("_meta") or {}).get("progressToken")
    answers: list[dict[str, Any]] = []
    actions: list[Any] = []
    last: dict[str, Any] | None = None

    def end(outcome: dict[str, Any]) -> None:  # the call's answer, or the task's result
        if task is None:
            send({"id": call_id, **outcome})
        else:
            task.finish(outcome)

    for op in (params.get("arguments") or {}).get("ops", []):
        kind = op.get("op")
        text = echo(op.get("echo", "none"), str(op.get("text", "")), answers)
        if op.get("pad"):  # a long text after the echo (a server sending megabytes)
            text += " " + "y" * int(op["pad"])
        form = {"mode": "form", "message": op.get("message", ""), "requestedSchema": op.get("schema", {})}
        if op.get("meta"):  # e.g. {"ui": {"resourceUri": ...}}: an app to show the question with
            form["_meta"] = op["meta"]
        if kind == "elicit" and task is not None:  # through the pending tasks/result, naming the task
            form["_meta"] = {**form.get("_meta", {}), RELATED: {"taskId": task.task_id}}
            task.status = "input_required"
            task.fetching.wait(30)
            send({"id": op["id"], "method": "elicitation/create", "params": form})
        elif kind == "elicit":
            send({"id": op["id"], "method": "elicitation/create", "params": form})
        elif kind == "elicit_url":
            url_form = {
                "mode": "url",
                "message": op.get("message", ""),
                "url": op.get("url", ""),
                "elicitationId": op.get("elicitationId", "e"),
            }
            send({"id": op["id"], "method": "elicitation/create", "params": url_form})
        elif kind == "complete":
            send(
                {
                    "method": "notifications/elicitation/complete",
                    "params": {"elicitationId": op.get("elicitationId", "e")},
                }
            )
        elif kind in ("await", "flood"):
            ids = [op["id"]] if kind == "await" else [f"flood-{call_id}-{i}" for i in range(op.get("n", 1))]
            if kind == "flood":
                for rid in ids:
                    send({"id": rid, "method": "elicitation/create", "params": form})
            for rid in ids:
                reply = wait_reply(rid, op.get("timeout", 30.0))
                content = ((reply or {}).get("result") or {}).get("content")
                actions.append(((reply or {}).get("result") or {}).get("action"))
                if isinstance(content, dict):
                    answers.append(content)
            if task is not None:
                task.status = "working"
        elif kind == "ping":  # a ping of its own, with any id (a question's: ids may repeat); not awaited
            send({"id": op["id"], "method": "ping"})
        elif kind == "cancel":
            send({"method": "notifications/cancelled", "params": {"requestId": op["id"], "reason": text}})
        elif kind == "progress" and token is not None:
            progress = {"progressToken": token, "progress": op.get("progress", 1), "message": text}
            send({"method": "notifications/progress", "params": progress})
        elif kind == "log":
            send(
                {
                    "method": "notifications/message",
                    "params": {"level": op.get("level", "info"), "logger": "raw", "data": text},
                }
            )
        elif kind == "result":
            last = {"result": {"content": [{"type": "text", "text": text}]}}
            end(last)
        elif kind == "report":  # what it was answered: each action, each accepted content
            report = json.dumps({"actions": actions, "answers": answers})
            last = {"result": {"content": [{"type": "text", "text": report}]}}
            end(last)
        elif kind == "error":
            last = {"error": {"code": op.get("code", -32602), "message": text}}
            end(last)
        elif kind == "again" and last is not None:
            end(last)
        elif kind == "stray":
            send({"id": "nobody-asked", "result": {"content": [{"type": "text", "text": text}]}})
        elif kind == "garbage":
            send("this is not json {" + text.replace("\n", " "))
        elif kind == "sleep":
            time.sleep(min(float(op.get("s", 0.01)), 2.0))
        elif kind == "exit":
            os._exit(0)


def handle(message: dict[str, Any]) -> None:
    method, rid = message.get("method"), message.get("id")
    if method is None:  # a reply to one of our requests
        with _arrived:
            _replies[json.dumps(rid)] = message
            _arrived.notify_all()
        return
    if rid is None:  # a notification: nothing to do
        return
    params = message.get("params") or {}
    if method == "initialize":
        info = {"name": "raw", "version": "0"}
        caps: dict[str, Any] = {"tools": {}, "logging": {}}
        if APPS:  # `--apps`: it declares app-rendered questions, serves its apps, and runs tasks
            caps["resources"] = {}
            caps["extensions"] = {"io.modelcontextprotocol/ui": {"elicitation": {}}}
            caps["tasks"] = {"requests": {"tools": {"call": {}}}, "cancel": {}}
        result = {"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": info}
        send({"id": rid, "result": result})
    elif method == "tools/list":
        send({"id": rid, "result": {"tools": [TOOL, TASK_TOOL] if APPS else [TOOL]}})
    elif method == "resources/list":
        send({"id": rid, "result": {"resources": []}})
    elif method == "resources/read" and params.get("uri") in APP_DOCUMENTS:
        uri = params["uri"]
        mime = NOT_APPS.get(uri, "text/html;profile=mcp-app")
        contents = [{"uri": uri, "mimeType": mime, "text": APP_DOCUMENTS[uri]}]
        send({"id": rid, "result": {"contents": contents}})
    elif method == "resources/read":
        send({"id": rid, "error": {"code": -32002, "message": "no such resource"}})
    elif method in ("ping", "logging/setLevel"):
        send({"id": rid, "result": {}})
    elif method == "tools/call" and params.get("name") == "play_task" and "task" in params:
        task = Task(f"t{len(_tasks) + 1}")
        _tasks[task.task_id] = task
        send({"id": rid, "result": {"task": task.state()}})
        threading.Thread(target=play, args=(rid, params, task), daemon=True).start()
    elif method == "tools/call":
        threading.Thread(target=play, args=(rid, params), daemon=True).start()
    elif method == "tasks/get" and params.get("taskId") in _tasks:
        send({"id": rid, "result": _tasks[params["taskId"]].state()})
    elif method == "tasks/result" and params.get("taskId") in _tasks:
        threading.Thread(target=_tasks[params["taskId"]].result, args=(rid,), daemon=True).start()
    elif method == "tasks/cancel" and params.get("taskId") in _tasks:
        task = _tasks[params["taskId"]]
        task.finish({"error": {"code": -32603, "message": "the task was cancelled"}})
        task.status = "cancelled"
        send({"id": rid, "result": task.state()})
    else:
        send({"id": rid, "error": {"code": -32601, "message": f"no {method}"}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
