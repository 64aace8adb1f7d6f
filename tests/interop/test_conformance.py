"""The official MCP conformance suite (`@modelcontextprotocol/conformance`) against `mcp_widgets.conformance`.

The suite starts its own test server per scenario and runs our client command against it; it judges what
the client sent. Node 22 and the suite come from scripts/conformance-deps.sh; without them these tests skip.
All scenarios run at once (each is a Node process plus a Python one), so the module costs one scenario's time.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from mcp_widgets.conformance import accept_untouched, arguments_for, main
from mcp_widgets.widgets import ElicitationForm
from tests.interop.nodejs import ROOT, SUITE, node_or_skip

REQUIRED = ["initialize", "tools_call", "elicitation-sep1034-client-defaults"]
# Not required by the project, but cheap and the only real OAuth flow `connect(auth=...)` meets in the tests.
ALSO = ["auth/metadata-default"]
CLIENT = f"{shlex.quote(sys.executable)} -m mcp_widgets.conformance"
# The same scenarios through the sign-in card: a handler consents on it and a stand-in browser follows its
# authorization address to the loopback redirect (`--interactive`). One per way of registering.
INTERACTIVE = ["auth/metadata-default", "auth/basic-cimd", "auth/pre-registration", "auth/scope-step-up"]
# A client that connects to nothing: the suite must call that a failure (proves the verdict is read).
IDLE_CLIENT = f"{shlex.quote(sys.executable)} -c pass"
SUITE_TIMEOUT_MS = 180_000  # the suite's own per-scenario bound; a loaded CI machine starts Python slowly


@dataclass
class Run:
    scenario: str
    returncode: int
    output: str
    checks: list[dict[str, Any]]

    def failures(self) -> list[str]:
        return [f"{c['id']}: {c.get('errorMessage', '')}" for c in self.checks if c["status"] == "FAILURE"]

    def verdicts(self) -> dict[str, str]:
        """Check id -> status, for the checks that judge (not the INFO log entries)."""
        return {c["id"]: c["status"] for c in self.checks if c["status"] != "INFO"}


def _start(node: str, scenario: str, command: str, out: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_WIDGETS_HANDLER"}
    argv = [node, str(SUITE), "client", "--command", command, "--scenario", scenario]
    argv += ["--timeout", str(SUITE_TIMEOUT_MS), "-o", str(out)]
    return subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _finish(scenario: str, proc: subprocess.Popen[str], out: Path) -> Run:
    output, _ = proc.communicate(timeout=SUITE_TIMEOUT_MS / 1000 + 60)
    found = sorted(out.rglob("checks.json"))
    checks = json.loads(found[-1].read_text()) if found else []
    return Run(scenario, proc.returncode, output, checks)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    node = node_or_skip(SUITE)
    base = tmp_path_factory.mktemp("conformance")
    jobs = {name: (CLIENT, name) for name in REQUIRED + ALSO}
    jobs |= {f"interactive {name}": (f"{CLIENT} --interactive", name) for name in INTERACTIVE}
    jobs["control"] = (IDLE_CLIENT, "tools_call")
    dirs = {key: base / key.replace("/", "_").replace(" ", "_") for key in jobs}
    procs = {key: _start(node, scenario, cmd, dirs[key]) for key, (cmd, scenario) in jobs.items()}
    try:
        yield {key: _finish(jobs[key][1], proc, dirs[key]) for key, proc in procs.items()}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.mark.parametrize("scenario", REQUIRED + ALSO)
def test_scenario_passes(runs: dict[str, Run], scenario: str) -> None:
    run = runs[scenario]
    assert run.checks, f"the suite wrote no checks for {scenario}:\n{run.output[-3000:]}"
    assert not run.failures(), run.failures()
    assert "SUCCESS" in run.verdicts().values()
    assert run.returncode == 0, run.output[-3000:]
    assert "OVERALL: PASSED" in run.output


@pytest.mark.parametrize("scenario", INTERACTIVE)
def test_scenario_passes_through_the_sign_in_card(runs: dict[str, Run], scenario: str) -> None:
    run = runs[f"interactive {scenario}"]
    assert run.checks, f"the suite wrote no checks for {scenario}:\n{run.output[-3000:]}"
    assert not run.failures(), run.failures()
    assert run.returncode == 0 and "OVERALL: PASSED" in run.output, run.output[-3000:]
    # The loopback took the redirect: every authorization and token request named it.
    ids = ("authorization-request", "incoming-auth-request")
    asked = [c["details"] for c in run.checks if c["id"] in ids]
    redirects = {d.get("query", d.get("body", {})).get("redirect_uri") for d in asked} - {None}
    assert redirects and all(r.startswith("http://127.0.0.1:") for r in redirects), redirects


def test_initialize_reports_client_and_protocol(runs: dict[str, Run]) -> None:
    (check,) = [c for c in runs["initialize"].checks if c["id"] == "mcp-client-initialization"]
    assert check["details"]["clientName"] == "mcp-widgets"
    assert check["details"]["versionMatch"] is True


def test_tools_call_sends_the_arguments(runs: dict[str, Run]) -> None:
    (check,) = [c for c in runs["tools_call"].checks if c["id"] == "tool-add-numbers"]
    assert check["details"] == {"a": 5, "b": 3, "result": 8}


def test_defaults_reach_the_server_through_the_form(runs: dict[str, Run]) -> None:
    verdicts = runs["elicitation-sep1034-client-defaults"].verdicts()
    kinds = ["string", "integer", "number", "enum", "boolean"]
    assert {f"client-elicitation-sep1034-{k}-default": "SUCCESS" for k in kinds} == verdicts
    for check in runs["elicitation-sep1034-client-defaults"].checks:
        if check["status"] == "SUCCESS":
            assert check["details"]["receivedValue"] == check["details"]["expectedDefault"]


def test_oauth_flow_ends_with_a_bearer_token(runs: dict[str, Run]) -> None:
    verdicts = runs["auth/metadata-default"].verdicts()
    assert verdicts.get("valid-bearer-token") == "SUCCESS"
    assert set(verdicts.values()) == {"SUCCESS"}


def test_the_suite_verdict_is_read(runs: dict[str, Run]) -> None:
    run = runs["control"]
    assert run.returncode != 0
    assert any(f.startswith("tool-add-numbers") for f in run.failures())


# --------------------------------------------------------------------------- the client command's parts


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "inactive"},
        "ok": {"type": "boolean", "default": True},
    },
}


def test_accept_untouched_sends_the_prefilled_defaults() -> None:
    form = ElicitationForm("Defaults?", SCHEMA, server="test")
    asyncio.run(accept_untouched(form))
    assert form.result is not None
    assert form.result.action == "accept"
    assert form.result.content == {"name": "John Doe", "age": 30, "status": "inactive", "ok": True}
    assert type(form.result.content["age"]) is int


def test_accept_untouched_declines_when_defaults_are_not_enough() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}
    form = ElicitationForm("Name?", schema, server="test")
    asyncio.run(accept_untouched(form))
    assert form.result is not None
    assert form.result.action == "decline"


def test_arguments_for_known_and_unknown_tools() -> None:
    add = mcp_types.Tool(name="add_numbers", input_schema={"type": "object"})
    assert arguments_for(add) == {"a": 5, "b": 3}
    other = mcp_types.Tool(
        name="other",
        input_schema={
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "s": {"type": "string", "default": "x"},
                "e": {"enum": ["p", "q"]},
                "skip": {"type": "string"},
            },
            "required": ["n", "s", "e"],
        },
    )
    assert arguments_for(other) == {"n": 1, "s": "x", "e": "p"}


def test_main_usage_and_unreachable_server(monkeypatch: pytest.MonkeyPatch) -> None:
    assert main([]) == 2
    monkeypatch.setenv("MCP_CONFORMANCE_SCENARIO", "initialize")
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        assert main([f"http://127.0.0.1:{port}/mcp"]) == 1
