"""2025-11-25 tasks inside real kernels (the server: tests/interop/tasks_server.mjs).

A task's question, delivered through tasks/result, is a form in the calling cell that a click answers; an
interrupt cancels the task on the server.
"""

from __future__ import annotations

import json

import pytest

from tests.interop.nodejs import HERE, SDK, node_or_skip

from .harness import KernelFrontend
from .test_client_kernel import RESET as CLIENT_RESET
from .test_client_kernel import assert_shown_in, connect, final_line, ok, pending_form, shown_in

# One kernel per release serves the module's cases (`reuse_kernel`: a case that fails or leaves it unclean
# gets a fresh one): what they test happens after the kernel's first moments.
pytestmark = [pytest.mark.kernel, pytest.mark.reuse_kernel, pytest.mark.one_per_mechanism]
RESET = CLIENT_RESET


def connect_tasks(frontend: KernelFrontend) -> None:
    node = node_or_skip(SDK)
    connect(frontend, target=repr([node, str(HERE / "tasks_server.mjs"), "stdio"]))


def test_a_task_question_is_answered_by_a_click(frontend: KernelFrontend) -> None:
    connect_tasks(frontend)
    msg_id = frontend.execute("r = srv.call_tool_sync('ask_required')\nprint(r.content[0].text)")
    form = pending_form(frontend).seen()
    # The call's panel follows the task (tasks/get): it waits for the person now.
    final_line(frontend, "Task input required: Waiting for your name")
    form.type("Name *", "Ada").click("Accept")
    cell = ok(frontend.wait_cell(msg_id, timeout=60))
    assert json.loads(cell.stdout) == {"action": "accept", "content": {"name": "Ada"}}
    assert_shown_in(cell, form)
    final_line(frontend, "Task completed")
    final_line(frontend, "accepted by the person")


def test_an_interrupt_cancels_the_task(frontend: KernelFrontend) -> None:
    connect_tasks(frontend)
    msg_id = frontend.execute("srv.call_tool_sync('ask_required')")
    pending_form(frontend).seen()
    frontend.interrupt()
    cell = frontend.wait_cell(msg_id, timeout=60)
    assert cell.status == "error" and cell.ename == "KeyboardInterrupt"
    states = ok(frontend.run("print(srv.call_tool_sync('task_states').content[0].text)")).stdout
    assert list(json.loads(states).values()) == ["cancelled"]


def test_a_task_question_goes_to_its_own_call(frontend: KernelFrontend) -> None:
    # Two calls in flight: an older one asking nothing, and a task. Guessing would pick the older, idle
    # call; the question's related-task metadata names the task's call, so it lands in that cell.
    connect_tasks(frontend)
    idle = ok(frontend.run("a = srv.call_tool_background('wait_a_while')"))
    asking = ok(frontend.run("b = srv.call_tool_background('ask_required')"))
    form = pending_form(frontend).seen()
    assert_shown_in(asking, form)
    assert not shown_in(idle, form.model.comm_id, frontend)
    form.type("Name *", "Ada").click("Accept")
    cell = ok(frontend.run("print(b.result().content[0].text, a.result().content[0].text)"))
    assert cell.stdout == '{"action":"accept","content":{"name":"Ada"}} waited\n'
