"""A raw JSON-RPC 2026-07-28 server over stdio that asks with its app, `_meta` kept on the wire.

The SDK's 2026-07-28 wire models drop `_meta` from a question embedded in an input-required result; SEP-3118
keeps it. This server answers `tools/call` of `pick` with one `inputRequests` entry carrying
`_meta.ui.resourceUri` (tests/servers/app_question.py's picker), then, on the retry, with what it was answered
(`{"actions": [...], "answers": [...]}` as text, as rawrpc's `report`). `pick_task` asks the same as a task
(the tasks extension, SEP-2663): `tools/call` answers `resultType: "task"`, `tasks/get` carries the question
in `inputRequests` until `tasks/update` answers it, then the report as the task's result. It declares
app-rendered questions and serves the picker (`resources/read`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.servers import app_question

VERSION = "2026-07-28"
INFO = {"io.modelcontextprotocol/serverInfo": {"name": "raw-mrtr", "version": "0"}}
TOOL = {
    "name": "pick",
    "description": "Asks with its app.",
    "inputSchema": {"type": "object", "properties": {}},
}
TASK_TOOL = {
    "name": "pick_task",
    "description": "Asks with its app, as a task.",
    "inputSchema": {"type": "object", "properties": {}},
}
STAMP = "2026-01-01T00:00:00Z"
QUESTION = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Which colour, and how dark?",
        "requestedSchema": app_question.SCHEMA,
        "_meta": {"ui": {"resourceUri": app_question.PICKER}},
    },
}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def complete(rid: Any, result: dict[str, Any], *, cached: bool = True) -> None:
    caching = {"cacheScope": "private", "ttlMs": 0} if cached else {}
    send({"id": rid, "result": {**result, **caching, "resultType": "complete", "_meta": INFO}})


def report_of(response: dict[str, Any]) -> dict[str, Any]:
    """A tool result saying what the question was answered (action and accepted content)."""
    content = response.get("content")
    report = {"actions": [response.get("action")], "answers": [content] if isinstance(content, dict) else []}
    return {"content": [{"type": "text", "text": json.dumps(report)}]}


_tasks: dict[str, dict[str, Any]] = {}
"""`pick_task`'s tasks by id: their status, and their result once answered."""


def task_state(task_id: str) -> dict[str, Any]:
    task = _tasks[task_id]
    state = {
        "taskId": task_id,
        "status": task["status"],
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttlMs": 60_000,
        "pollIntervalMs": 100,
    }
    if task["status"] == "input_required":
        state["inputRequests"] = {"color": QUESTION}
    elif task["status"] == "completed":
        state["result"] = task["result"]
    return state


def handle(message: dict[str, Any]) -> None:
    method, rid = message.get("method"), message.get("id")
    if method is None or rid is None:
        return
    params = message.get("params") or {}
    if method == "server/discover":
        capabilities = {
            "tools": {},
            "resources": {},
            "extensions": {"io.modelcontextprotocol/ui": {"elicitation": {}}},
        }
        complete(rid, {"supportedVersions": [VERSION], "capabilities": capabilities})
    elif method == "tools/list":
        complete(rid, {"tools": [TOOL, TASK_TOOL]})
    elif method == "resources/list":
        complete(rid, {"resources": []})
    elif method == "resources/templates/list":
        complete(rid, {"resourceTemplates": []})
    elif method == "prompts/list":
        complete(rid, {"prompts": []})
    elif method == "resources/read" and params.get("uri") == app_question.PICKER:
        text = app_question.PICKER_HTML
        complete(
            rid,
            {
                "contents": [
                    {"uri": app_question.PICKER, "mimeType": "text/html;profile=mcp-app", "text": text}
                ]
            },
        )
    elif method == "tools/call" and params.get("name") == "pick_task":
        task_id = f"t{len(_tasks) + 1}"
        _tasks[task_id] = {"status": "input_required", "result": None}
        send({"id": rid, "result": {"resultType": "task", **task_state(task_id), "_meta": INFO}})
    elif method == "tasks/get":
        complete(rid, task_state(params["taskId"]), cached=False)
    elif method == "tasks/update":
        task = _tasks[params["taskId"]]
        response = (params.get("inputResponses") or {}).get("color")
        if isinstance(response, dict) and task["status"] == "input_required":
            task.update(status="completed", result=report_of(response))
        complete(rid, {}, cached=False)
    elif method == "tasks/cancel":
        _tasks[params["taskId"]]["status"] = "cancelled"
        complete(rid, {}, cached=False)
    elif method == "tools/call" and params.get("inputResponses"):
        complete(rid, report_of(params["inputResponses"].get("color") or {}))
    elif method == "tools/call":
        result = {"resultType": "input_required", "inputRequests": {"color": QUESTION}, "requestState": "s1"}
        send({"id": rid, "result": {**result, "_meta": INFO}})
    elif method == "ping":
        complete(rid, {})
    else:
        send({"id": rid, "error": {"code": -32601, "message": f"no {method}"}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))


if __name__ == "__main__":
    main()
