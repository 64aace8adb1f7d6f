// The wire: a connection's JSON-RPC messages, one row per call, opening to its messages.
// Every text is set as textContent (never HTML); the kernel sends text already made literal. A message's
// body is asked for when its row opens and is not kept in the widget's state.
// The view updates in place: a group or a row whose content did not change keeps its element, so what a
// person opened, scrolled or selected stays as it was while new messages arrive.
// `node` and `LITERAL` come from literal.js, prepended.

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

// `parent`'s children become `wanted`, in order, moving only what is out of place (a node kept in place
// keeps its scroll position and any selection in it).
function reconcile(parent, wanted) {
  let at = parent.firstChild;
  for (const child of wanted) {
    if (child === at) {
      at = at.nextSibling;
    } else {
      parent.insertBefore(child, at);
    }
  }
  while (at) {
    const next = at.nextSibling;
    parent.removeChild(at);
    at = next;
  }
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

  const details = new Map(); // seq -> text, for this view only
  const waiting = new Map(); // seq -> the rows waiting for it
  const groups = new Map(); // group key -> its view (kept while the group is shown)

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
    if (!content || typeof content.details !== "object" || content.details === null) return;
    for (const [key, text] of Object.entries(content.details)) {
      const seq = Number(key);
      details.set(seq, String(text));
      const job = waiting.get(seq);
      waiting.delete(seq);
      if (job && job.seqs.every((s) => details.has(s))) fill(job.pre, job.seqs);
    }
  }

  function rowView(row) {
    const item = node("details", "mcp-wire-row" + (row.error ? " mcp-wire-error" : ""));
    const line = node("summary");
    line.append(
      node("span", "mcp-wire-time", `+${row.at.toFixed(3)} s`),
      node("span", `mcp-wire-dir mcp-wire-dir-${row.dir}`, ARROWS[row.dir] || "·"),
      node("span", "mcp-wire-text", row.text),
    );
    line.title = `${WAYS[row.dir] || ""}: ${row.text}`;
    if (row.size) line.append(node("span", "mcp-wire-size", size(row.size)));
    if (row.took !== null && row.took !== undefined) line.append(node("span", "mcp-wire-took", took(row.took)));
    const pre = node("pre", "mcp-wire-detail " + LITERAL.join(" "));
    item.append(line, pre);
    item.addEventListener("toggle", () => {
      if (item.open) fill(pre, row.seqs);
    });
    return { el: item, json: JSON.stringify(row) };
  }

  function groupLine(group) {
    const parts = [
      node("span", "mcp-wire-time", `${group.start.toFixed(3)} s`),
      node("span", "mcp-wire-label", group.label),
      node("span", "mcp-wire-dim", ` · ${group.count} message${group.count === 1 ? "" : "s"} · ${took(group.took)}`),
    ];
    if (group.outcome) {
      parts.push(
        node("span", "mcp-wire-dim", " · "),
        node("span", "mcp-wire-outcome" + (group.error ? " mcp-wire-outcome-error" : ""), group.outcome),
      );
    }
    return parts;
  }

  // A group's rows, built when it is first opened and updated in place after (a row is keyed by the
  // first message it shows: a folded row of polls keeps its element, and whether it is open, as it grows).
  function drawRows(view) {
    const group = view.group;
    const wanted = [];
    const kept = new Map();
    if (group.earlier) {
      view.earlier = view.earlier || node("div", "mcp-wire-dim");
      view.earlier.textContent = `(${group.earlier} earlier rows not shown)`;
      wanted.push(view.earlier);
    }
    for (const row of group.rows) {
      const id = row.seqs[0];
      const json = JSON.stringify(row);
      let shown = view.rows.get(id);
      if (shown && shown.json !== json) {
        const open = shown.el.open;
        shown = rowView(row);
        if (open) {
          shown.el.open = true;
          fill(shown.el.querySelector("pre"), row.seqs);
        }
      } else if (!shown) {
        shown = rowView(row);
      }
      kept.set(id, shown);
      wanted.push(shown.el);
    }
    view.rows = kept;
    reconcile(view.body, wanted);
  }

  function groupView(group) {
    let view = groups.get(group.key);
    const json = JSON.stringify(group);
    if (view && view.json === json) return view;
    if (!view) {
      const item = node("details", "mcp-wire-group");
      item.dataset.key = group.key;
      const line = node("summary");
      const body = node("div", "mcp-wire-rows");
      item.append(line, body);
      view = { el: item, line, body, rows: new Map(), built: false, json: "", group };
      const made = view;
      item.addEventListener("toggle", () => {
        if (item.open && !made.built) {
          made.built = true;
          drawRows(made);
        }
      });
      groups.set(group.key, view);
    }
    view.group = group;
    view.json = json;
    view.line.replaceChildren(...groupLine(group));
    view.line.title = `${group.label}${group.outcome ? ": " + group.outcome : ""}`;
    if (view.built) drawRows(view);
    return view;
  }

  function matches(group, word) {
    if (!word) return true;
    const hay = [group.label, group.outcome, ...group.rows.map((r) => r.text)].join("\n").toLowerCase();
    return hay.includes(word);
  }

  let note = null;
  let earlier = null;

  function draw() {
    const state = model.get("state") || {};
    title.textContent = model.get("title") || "";
    root.setAttribute("aria-label", model.get("title") || "The wire");
    summary.textContent = state.summary || "";
    const word = filter.value.trim().toLowerCase();
    const all = state.groups || [];
    const shown = all.filter((g) => matches(g, word));
    const wanted = [];
    if (state.earlier) {
      earlier = earlier || node("div", "mcp-wire-dim");
      earlier.textContent = `(${state.earlier} earlier groups not shown)`;
      wanted.push(earlier);
    }
    for (const group of shown) wanted.push(groupView(group).el);
    if (!shown.length) {
      note = note || node("div", "mcp-wire-dim mcp-wire-note");
      note.textContent = word ? "Nothing matches." : "No messages yet.";
      wanted.push(note);
    }
    // Groups gone from the state (fallen off the ring) are forgotten; those filtered out are kept.
    const live = new Set(all.map((g) => g.key));
    for (const key of [...groups.keys()]) if (!live.has(key)) groups.delete(key);
    reconcile(list, wanted);
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
