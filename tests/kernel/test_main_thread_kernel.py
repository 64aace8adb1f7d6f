"""Every update to a widget is made on the kernel's main thread, in real kernels (Colab's runtime among them,
where an update made from another thread may never be redrawn): the client runs the SDK on a thread of its
own, and whatever it has to show goes through the kernel room's `post` to the main thread.

The kernel counts every widget model opened, sent a message or closed off the main thread (a hook around
ipywidgets' `Widget.open`, `_send` and `close`) while a person answers an awaited, a blocking and a background
call, a call reports progress and logs, and the history is shown and updated; the count must stay 0. The hook
is shown to count, first, by an update made from a thread of the test's own.
"""

from __future__ import annotations

import pytest

from .harness import KernelFrontend
from .test_client_kernel import final_line, ok, pending_form

pytestmark = [pytest.mark.kernel, pytest.mark.colab]

HOOK = """
import threading
import ipywidgets as _W
off_main = []

def _counted(method):
    def counted(self, *args, **kwargs):
        opened = method.__name__ == "open" or getattr(self, "comm", None) is not None  # else nothing is sent
        if opened and threading.current_thread() is not threading.main_thread():
            off_main.append(f"{type(self).__name__}.{method.__name__} on {threading.current_thread().name}")
        return method(self, *args, **kwargs)
    return counted

for _name in ("open", "_send", "close"):
    setattr(_W.Widget, _name, _counted(getattr(_W.Widget, _name)))

label = _W.Label("made on the main thread")
_t = threading.Thread(target=lambda: setattr(label, "value", "changed from a thread"), name="not-main")
_t.start(); _t.join()
print(off_main)
off_main.clear()
"""

CONNECT = """
import mcp_widgets as mw
import mcp_widgets.client as mwc
from mcp_widgets.demo import create_server
mwc.questions.answering.LOOK_GRACE = 30  # the test frontend may be slow to report a view on a loaded machine
srv = mwc.connect_sync(create_server(sign_in_port=0), name="demo", log_level="debug")
history = srv.history
display(history)
print("connected")
"""

CALLS = {
    "await": "r = await srv.call_tool('weather')\nprint(r.structured_content['city'])",
    "sync": "r = srv.call_tool_sync('weather')\nprint(r.structured_content['city'])",
}


def test_the_client_updates_widgets_on_the_main_thread_only(frontend: KernelFrontend) -> None:
    # The hook counts: a Label changed from another thread is one message sent off the main thread.
    assert ok(frontend.run(HOOK)).stdout.strip() == "['Label._send on not-main']"
    assert (
        "connected" in ok(frontend.run("from IPython.display import display\n" + CONNECT, timeout=180)).stdout
    )

    for style, city in (("await", "Kyoto"), ("sync", "Oslo")):
        msg_id = frontend.execute(CALLS[style])
        pending_form(frontend).seen().type("City *", city).click("Accept")
        assert ok(frontend.wait_cell(msg_id, timeout=60)).stdout == f"{city}\n", style

    ok(frontend.run("call = srv.call_tool_background('weather')\ncall"))
    pending_form(frontend).seen().type("City *", "Lima").click("Accept")
    final_line(frontend, "tool 'weather' on 'demo': done")
    assert ok(frontend.run("print(call.result().structured_content['city'])")).stdout == "Lima\n"

    cell = ok(
        frontend.run("r = await srv.call_tool('long_task', {'seconds': 1.0, 'steps': 4})\nprint(r.is_error)")
    )
    assert cell.stdout == "False\n"
    assert ok(frontend.run("print(off_main)")).stdout == "[]\n"
