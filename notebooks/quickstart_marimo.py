import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    # mcp-widgets quickstart, in marimo

    This notebook is an [MCP](https://modelcontextprotocol.io) client. It talks to a small **demo server** that
    ships with mcp-widgets. Some of the demo's tools stop halfway and *ask you something* (MCP calls this
    **elicitation**).

    marimo runs one thing at a time: while a cell runs, nothing you click reaches Python. So in marimo a question
    is answered **after** the cell that made the call has returned: start the call with
    `srv.call_tool_background(...)`, answer in that cell's output, and let later cells read the result when the
    call ends. Nothing here touches your disk: the demo's "files" only exist in memory.
    """)
    return


@app.cell
def _():
    import sys

    import marimo as mo

    import mcp_widgets as mw

    return mo, mw, sys


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## Connect

    The demo server runs as a child process, with this notebook's Python, over stdio. `name="demo"` is the name
    every question shows, so you always know who is asking.
    """)
    return


@app.cell
async def _(mw, sys):
    srv = await mw.connect([sys.executable, "-m", "mcp_widgets.demo"], name="demo")
    srv
    return (srv,)


@app.cell
def _(srv):
    srv.tools
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## A call that asks nothing

    Most calls never ask anything: `await` them as anywhere else. The demo's tools return JSON, and
    `structured_content` holds it as a dict.
    """)
    return


@app.cell
async def _(srv):
    files = await srv.call_tool("list_files")
    files.structured_content
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## A question

    `register` asks for a workshop registration. The call starts in the background: this cell returns at once,
    and its line follows the call (*running*, *waiting for an answer*, *done*), with the question in it.
    `call.ui` is that line as a marimo UI element: bound to a name, it makes the cells that read it run again
    when the call ends.
    """)
    return


@app.cell
def _(srv):
    registration = srv.call_tool_background("register")
    registration_line = registration.ui
    return registration, registration_line


@app.cell
def _(registration, registration_line):
    registration_line.value  # this cell runs again when the call ends: no cell waits on it
    if registration.done():
        reply = registration.result().structured_content
        # Which fields arrived, not their values (outputs are saved with the notebook).
        answer = {**reply, "registration": sorted(reply["registration"])} if reply["done"] else reply
    else:
        answer = f"the call is {registration.state}: answer the question above"
    answer
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## Progress and logs

    `long_task` reports progress and writes log messages; its line shows the bar, the newest message and the
    log, then the result.
    """)
    return


@app.cell
def _(srv):
    task = srv.call_tool_background("long_task", {"seconds": 2, "steps": 4})
    task_line = task.ui
    return task, task_line


@app.cell
def _(task, task_line):
    task_line.value
    task.result().structured_content if task.done() else task.state
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## An awaited call that asks

    `await srv.call_tool(...)` and `srv.call_tool_sync(...)` run here too, but a question they get cannot be
    answered while their cell runs: it is declined at once, and the cell says so in one line. `weather` still
    answers (for Paris) when its question is declined.
    """)
    return


@app.cell
async def _(srv):
    weather = await srv.call_tool("weather")
    weather.structured_content
    return


if __name__ == "__main__":
    app.run()
