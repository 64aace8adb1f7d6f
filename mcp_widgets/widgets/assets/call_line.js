// One call's line: status, progress, log, notes and result, every text as textContent (never HTML).
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
  const notes = node("div", "mcp-call-line-notes");
  const log = node("details", "mcp-call-line-log");
  const logHead = node("summary", "");
  const logText = node("pre", "mcp-call-line-log-text");
  log.append(logHead, logText);
  const questions = node("div", "mcp-call-line-questions");
  const result = node("pre", "mcp-call-line-result");
  root.append(status, bar, progress, log, notes, questions, result);
  el.append(root);
  const drawn = new Map(); // model id -> its element: a question is drawn once, then redraws itself

  // Each question is a model of its own: the view asks the widget manager for it and draws it with the
  // question card's renderer (`renderQuestion`, joined into this module when there is one).
  async function drawQuestions() {
    const ids = (model.get("questions") || []).map((ref) => String(ref).replace(/^IPY_MODEL_/, ""));
    for (const [id, box] of drawn) {
      if (!ids.includes(id)) {
        box.remove();
        drawn.delete(id);
      }
    }
    for (const id of ids) {
      if (drawn.has(id) || typeof renderQuestion !== "function") continue;
      const box = node("div", "mcp-call-line-question");
      drawn.set(id, box);
      questions.append(box);
      const question = await model.widget_manager.get_model(id);
      renderQuestion({ model: question, el: box });
    }
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
    notes.replaceChildren(...(model.get("notes") || []).map((line) => node("div", "mcp-call-line-note", line)));
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

  for (const name of ["status", "progress", "fraction", "log", "log_count", "notes", "result", "ended"]) {
    model.on(`change:${name}`, draw);
  }
  model.on("change:questions", drawQuestions);
  draw();
  drawQuestions();
}

export default { render: renderCallLine };
