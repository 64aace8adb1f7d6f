// One call's whole display: status, progress, log, what was placed (notes, and widgets each drawn as its own
// model's view) and result, every text of its own as textContent (never HTML).
// `node` and `LITERAL` come from literal.js, prepended. Once the call ended, the page says so back
// (`seen_end`): in marimo a change from the page is what runs again the cells that read the line.

function renderCallLine({ model, el }) {
  const root = node("div", "mcp-call-line " + LITERAL.join(" "));
  root.setAttribute("role", "group");
  const status = node("div", "mcp-call-line-status");
  status.setAttribute("aria-live", "polite");
  const bar = node("progress", "mcp-call-line-bar");
  bar.max = 1;
  const progress = node("div", "mcp-call-line-progress");
  const log = node("details", "mcp-call-line-log");
  const logHead = node("summary", "");
  const logText = node("pre", "mcp-call-line-log-text");
  log.append(logHead, logText);
  const placed = node("div", "mcp-call-line-placed");
  const result = node("pre", "mcp-call-line-result");
  root.append(status, bar, progress, log, placed, result);
  el.append(root);
  const drawn = new Map(); // model id -> {box, view}: a widget is drawn once, then redraws itself

  // Each placed widget is a model of its own, drawn by the page's widget manager where it makes views
  // (JupyterLab, Notebook 7, Voila: the widget's own front end, whatever it is); marimo's hands out models
  // only, so there a question card is drawn with the renderer joined into this module (`renderQuestion`).
  async function drawWidget(entry, id) {
    const manager = model.widget_manager;
    try {
      const widget = await manager.get_model(id);
      if (drawn.get(id) !== entry) return;
      if (typeof manager.create_view === "function") {
        const view = await manager.create_view(widget, {});
        if (drawn.get(id) !== entry) {
          view.remove();
          return;
        }
        entry.view = view;
        placeView(view, entry.box);
      } else if (typeof renderQuestion === "function" && widget.get("_anywidget_id")) {
        renderQuestion({ model: widget, el: entry.box });
      }
    } catch (error) {
      // Closed as it was drawn (answered and put away meanwhile): the next state leaves it out.
    }
  }

  function forget(entry) {
    if (entry.view && typeof entry.view.remove === "function") entry.view.remove();
    entry.view = null;
    entry.box.remove();
  }

  function entryOf(id) {
    let entry = drawn.get(id);
    if (!entry) {
      entry = { box: node("div", "mcp-call-line-question"), view: null };
      drawn.set(id, entry);
      drawWidget(entry, id);
    }
    return entry.box;
  }

  // Notes and widgets in the order they were placed (`order`: "n" the next note, "q" the next widget).
  function drawPlaced() {
    const notes = model.get("notes") || [];
    const ids = (model.get("questions") || []).map((ref) => String(ref).replace(/^IPY_MODEL_/, ""));
    for (const [id, entry] of drawn) {
      if (!ids.includes(id)) {
        forget(entry);
        drawn.delete(id);
      }
    }
    for (const old of placed.querySelectorAll(":scope > .mcp-call-line-note")) old.remove();
    const wanted = [];
    let n = 0;
    let q = 0;
    for (const kind of model.get("order") || "") {
      if (kind === "n" && n < notes.length) wanted.push(node("div", "mcp-call-line-note", notes[n++]));
      if (kind === "q" && q < ids.length) wanted.push(entryOf(ids[q++]));
    }
    while (n < notes.length) wanted.push(node("div", "mcp-call-line-note", notes[n++]));
    while (q < ids.length) wanted.push(entryOf(ids[q++]));
    // Only notes move: a widget's box keeps its place (moving it would take the focus from a field typed in).
    wanted.forEach((item, i) => {
      if (placed.children[i] !== item) placed.insertBefore(item, placed.children[i] || null);
    });
  }

  function draw() {
    status.textContent = model.get("status");
    status.hidden = !model.get("status"); // an awaited call has no status line: the cell shows [*]
    const fraction = model.get("fraction");
    bar.hidden = !(fraction >= 0);
    if (fraction >= 0) bar.value = fraction;
    progress.textContent = model.get("progress");
    progress.hidden = !model.get("progress");
    const lines = model.get("log") || [];
    const count = model.get("log_count") || 0;
    log.hidden = count === 0;
    logHead.textContent = `Log (${count} message${count === 1 ? "" : "s"})`;
    logText.textContent = lines.join("\n");
    const shown = model.get("result") || [];
    result.textContent = shown.join("\n");
    result.hidden = shown.length === 0;
    const ended = model.get("ended");
    root.dataset.ended = ended;
    if (ended && model.get("echo_end") && model.get("seen_end") !== ended) {
      model.set("seen_end", ended);
      model.save_changes();
    }
  }

  for (const name of ["status", "progress", "fraction", "log", "log_count", "result", "ended"]) {
    model.on(`change:${name}`, draw);
  }
  for (const name of ["notes", "questions", "order"]) model.on(`change:${name}`, drawPlaced);
  draw();
  drawPlaced();
  // Drawn: the kernel may close this model at once when the call ends, before its closing text replaces the
  // view (else 2.5 s later, for a page still loading it; a classic Notebook then finds the view's output gone
  // and throws "Widget is not attached."). marimo keeps its line after the call: nothing to say there.
  if (!model.get("echo_end")) model.send({ drawn: true });
  return () => {
    for (const entry of drawn.values()) forget(entry);
    drawn.clear();
  };
}

export default { render: renderCallLine };
