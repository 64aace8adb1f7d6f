// The history panel: its filters, paging and one page of the table, every text set as textContent (never
// HTML), in a box MathJax is told to leave alone. `node` and `LITERAL` come from literal.js, prepended.
// The kernel pages and filters (the store may hold 10,000 records; the state holds one page); a choice or
// a press goes to it as a message, and the new page comes back as state.

const CELLS = ["when", "server", "call", "mode", "msg", "fields", "outcome", "who", "took"];

function renderHistory({ model, el }) {
  const root = node("div", "mcp-widgets-history-panel " + LITERAL.join(" "));
  root.setAttribute("role", "region");
  root.setAttribute("aria-label", "Elicitation history");
  const controls = node("div", "mcp-widgets-history-controls");

  function dropdown(label, key) {
    const box = node("label", "mcp-widgets-history-filter");
    const select = node("select", "mcp-widgets-history-select");
    select.setAttribute("aria-label", label); // its name (a wrapping label would add the options' text)
    box.append(node("span", "", label), select);
    select.addEventListener("change", () => {
      const value = select.value === "" ? null : select.value;
      model.send({ [key]: value });
    });
    return { box, select };
  }

  const servers = dropdown("Server", "server");
  const outcomes = dropdown("Outcome", "outcome");
  const newer = node("button", "mcp-widgets-history-button", "← Newer");
  newer.title = "Newer entries";
  const older = node("button", "mcp-widgets-history-button", "Older →");
  older.title = "Older entries";
  newer.addEventListener("click", () => model.send({ turn: -1 }));
  older.addEventListener("click", () => model.send({ turn: 1 }));
  const status = node("span", "mcp-widgets-history-status");
  status.setAttribute("aria-live", "polite");
  controls.append(servers.box, outcomes.box, newer, older, status);
  const scroll = node("div", "mcp-widgets-history-scroll");
  const table = node("table", "mcp-widgets-history");
  const head = node("thead", "");
  const body = node("tbody", "");
  table.append(head, body);
  scroll.append(table);
  const names = node("div", "mcp-widgets-history-names dim");
  root.append(controls, scroll, names);
  el.append(root);

  function options(select, pairs, chosen) {
    const made = pairs.map(([label, value]) => {
      const option = node("option", "", label);
      option.value = value === null ? "" : value;
      return option;
    });
    select.replaceChildren(...made);
    select.value = chosen === null ? "" : chosen;
  }

  function cell(cls, text, row) {
    const td = node("td", cls);
    if (cls === "when") {
      td.title = text;
      td.append(node("div", "", row.when));
    } else if (cls === "fields" && (row.names || []).length > 1) {
      const details = node("details", "");
      const summary = node("summary", "", text);
      summary.title = text;
      const list = node("ul", "");
      list.append(...row.names.map((name) => node("li", "", name)));
      details.append(summary, list);
      td.append(details);
    } else {
      td.title = text;
      td.append(node("div", "", text));
    }
    return td;
  }

  function draw() {
    const pinned = model.get("pinned");
    servers.box.hidden = pinned;
    if (!pinned) {
      options(servers.select, [["All servers", null], ...model.get("servers")], model.get("server_filter"));
    }
    options(outcomes.select, model.get("outcomes"), model.get("outcome_filter"));
    const page = model.get("page");
    newer.disabled = page <= 0;
    older.disabled = page >= model.get("pages") - 1;
    status.textContent = model.get("status");
    const tr = node("tr", "");
    tr.append(...model.get("columns").map((name, i) => node("th", CELLS[i], name)));
    head.replaceChildren(tr);
    const rows = model.get("lines") || [];
    if (rows.length === 0) {
      const empty = node("td", "dim", model.get("empty"));
      empty.colSpan = CELLS.length;
      const line = node("tr", "");
      line.append(empty);
      body.replaceChildren(line);
    } else {
      body.replaceChildren(
        ...rows.map((row) => {
          const line = node("tr", "");
          line.append(...row.cells.map((text, i) => cell(CELLS[i], text, row)));
          return line;
        }),
      );
    }
    names.textContent = model.get("names_note");
    names.hidden = !model.get("names_note");
  }

  // One refresh in the kernel changes several traits at once: the page is drawn once for them.
  let queued = false;
  function later() {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      draw();
    });
  }
  const names_ = ["lines", "status", "page", "pages", "servers", "server_filter", "outcome_filter", "empty"];
  const watched = [...names_, "names_note", "pinned"];
  for (const name of watched) model.on(`change:${name}`, later);
  draw();
  // The kernel draws the panel only while a view shows it: say when this one comes and goes (a cell run
  // again or cleared takes it away; a panel nobody closed then costs the kernel nothing per question).
  const say = (view) => {
    try {
      model.send({ view });
    } catch (e) {
      // the model is closing (the kernel closed the panel): nothing to tell
    }
  };
  say(1);
  return () => {
    for (const name of watched) model.off(`change:${name}`, later);
    say(-1);
  };
}

export default { render: renderHistory };
