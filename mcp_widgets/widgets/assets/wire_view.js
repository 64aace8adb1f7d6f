// The wire: a connection's JSON-RPC messages, one row per call, opening to its messages.
// Every text is set as textContent (never HTML); the kernel sends text already made literal. A message's
// body is asked for when its row opens and is not kept in the widget's state.
const LITERAL = ["mathjax_ignore", "tex2jax_ignore"];

function node(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

function size(n) {
  if (!n) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function took(s) {
  if (s === null || s === undefined) return "";
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`;
}

const ARROWS = { out: "→", in: "←", http: "⇄" };
const WAYS = { out: "sent", in: "received", http: "HTTP" };

function render({ model, el }) {
  const root = node("div", "mcp-wire " + LITERAL.join(" "));
  root.setAttribute("role", "region");
  const head = node("div", "mcp-wire-head");
  const title = node("span", "mcp-wire-title");
  const summary = node("span", "mcp-wire-summary");
  const filter = node("input", "mcp-wire-filter");
  filter.type = "search";
  filter.placeholder = "Filter";
  filter.setAttribute("aria-label", "Filter the wire");
  head.append(title, summary, filter);
  const list = node("div", "mcp-wire-list");
  root.append(head, list);
  el.append(root);

  const openGroups = new Set();
  const openRows = new Set();
  const details = new Map(); // seq -> text, for this view only
  const waiting = new Map(); // seq -> <pre> to fill

  function fill(pre, seqs) {
    const texts = seqs.map((s) => details.get(s));
    if (texts.every((t) => t !== undefined)) {
      pre.textContent = texts.join("\n\n");
      return;
    }
    pre.textContent = "…";
    const want = seqs.filter((s) => !details.has(s));
    for (const s of want) waiting.set(s, { pre, seqs });
    model.send({ want });
  }

  function onCustom(content) {
    if (!content || typeof content.details !== "object") return;
    for (const [key, text] of Object.entries(content.details)) {
      const seq = Number(key);
      details.set(seq, String(text));
      const job = waiting.get(seq);
      waiting.delete(seq);
      if (job && job.seqs.every((s) => details.has(s))) fill(job.pre, job.seqs);
    }
  }

  function rowView(group, row) {
    const id = `${group.key}:${row.seqs[0]}`;
    const item = node("details", "mcp-wire-row" + (row.error ? " mcp-wire-error" : ""));
    const line = node("summary");
    line.append(
      node("span", "mcp-wire-time", `+${row.at.toFixed(3)} s`),
      node("span", `mcp-wire-dir mcp-wire-dir-${row.dir}`, ARROWS[row.dir] || "·"),
      node("span", "mcp-wire-text", row.text),
    );
    line.title = WAYS[row.dir] || "";
    if (row.size) line.append(node("span", "mcp-wire-size", size(row.size)));
    if (row.took !== null && row.took !== undefined) line.append(node("span", "mcp-wire-took", took(row.took)));
    item.append(line);
    const pre = node("pre", "mcp-wire-detail " + LITERAL.join(" "));
    item.append(pre);
    item.addEventListener("toggle", () => {
      if (item.open) {
        openRows.add(id);
        fill(pre, row.seqs);
      } else {
        openRows.delete(id);
      }
    });
    if (openRows.has(id)) {
      item.open = true;
      fill(pre, row.seqs);
    }
    return item;
  }

  function groupView(group) {
    const item = node("details", "mcp-wire-group");
    item.dataset.key = group.key;
    const line = node("summary");
    line.append(
      node("span", "mcp-wire-time", `${group.start.toFixed(3)} s`),
      node("span", "mcp-wire-label", group.label),
      node("span", "mcp-wire-dim", ` · ${group.count} message${group.count === 1 ? "" : "s"} · ${took(group.took)}`),
    );
    if (group.outcome) {
      line.append(node("span", "mcp-wire-outcome" + (group.error ? " mcp-wire-outcome-error" : ""), group.outcome));
    }
    item.append(line);
    const rows = node("div", "mcp-wire-rows");
    item.append(rows);
    const build = () => {
      if (rows.childElementCount) return;
      if (group.earlier) rows.append(node("div", "mcp-wire-dim", `(${group.earlier} earlier rows not shown)`));
      for (const row of group.rows) rows.append(rowView(group, row));
    };
    item.addEventListener("toggle", () => {
      if (item.open) {
        openGroups.add(group.key);
        build();
      } else {
        openGroups.delete(group.key);
      }
    });
    if (openGroups.has(group.key)) {
      item.open = true;
      build();
    }
    return item;
  }

  function matches(group, word) {
    if (!word) return true;
    const hay = [group.label, group.outcome, ...group.rows.map((r) => r.text)].join("\n").toLowerCase();
    return hay.includes(word);
  }

  function draw() {
    const state = model.get("state") || {};
    title.textContent = model.get("title") || "";
    root.setAttribute("aria-label", model.get("title") || "The wire");
    summary.textContent = state.summary || "";
    const word = filter.value.trim().toLowerCase();
    const groups = (state.groups || []).filter((g) => matches(g, word));
    const views = [];
    if (state.earlier) views.push(node("div", "mcp-wire-dim", `(${state.earlier} earlier groups not shown)`));
    for (const group of groups) views.push(groupView(group));
    if (!groups.length) views.push(node("div", "mcp-wire-dim", word ? "Nothing matches." : "No messages yet."));
    list.replaceChildren(...views);
  }

  filter.addEventListener("input", draw);
  model.on("change:state", draw);
  model.on("change:title", draw);
  model.on("msg:custom", onCustom);
  draw();
  return () => {
    model.off("change:state", draw);
    model.off("change:title", draw);
    model.off("msg:custom", onCustom);
  };
}

export default { render };
