// The open-questions list: a title line, then per question its line (server, waited, time left) and its own
// card, a second view of the card's model. Every text is set as textContent (never HTML). `node`, `LITERAL`
// and `renderQuestion` come from the question card's module, joined before this file.
//
// A card is drawn by the page's widget manager where it can make views (JupyterLab, Notebook 7, Voila: the
// card's own front end, whatever it is); marimo's hands out models only, so there a question card is drawn
// with the joined renderer, as a call's line draws it.

function renderPending({ model, el }) {
  const root = node("div", "mcp-widgets-pending " + LITERAL.join(" "));
  root.setAttribute("role", "region");
  root.setAttribute("aria-label", "Open questions");
  const title = node("div", "mcp-widgets-pending-title");
  title.setAttribute("aria-live", "polite");
  const list = node("div", "mcp-widgets-pending-list");
  root.append(title, list);
  el.append(root);
  const drawn = new Map(); // question id -> its row's elements and card view

  async function drawCard(entry, id) {
    const manager = model.widget_manager;
    try {
      const card = await manager.get_model(id);
      if (entry.cardId !== id) return;
      if (typeof manager.create_view === "function") {
        const view = await manager.create_view(card, {});
        if (entry.cardId !== id) {
          view.remove();
          return;
        }
        entry.view = view;
        placeView(view, entry.card);
      } else if (typeof renderQuestion === "function" && card.get("_anywidget_id")) {
        renderQuestion({ model: card, el: entry.card });
      } else {
        entry.card.append(node("div", "mcp-widgets-pending-note", "Answer it in the cell that asked."));
      }
    } catch (error) {
      // The card closed as it was drawn (answered meanwhile): the next list leaves its row out.
      entry.card.replaceChildren(node("div", "mcp-widgets-pending-note", "Answer it in the cell that asked."));
    }
  }

  function forget(entry) {
    if (entry.view && typeof entry.view.remove === "function") entry.view.remove();
    entry.view = null;
    entry.card.replaceChildren();
  }

  function draw() {
    title.textContent = model.get("title");
    const rows = model.get("rows") || [];
    const cards = model.get("cards") || [];
    const ids = rows.map((row) => String(row.id));
    for (const [id, entry] of drawn) {
      if (!ids.includes(id)) {
        forget(entry);
        entry.box.remove();
        drawn.delete(id);
      }
    }
    rows.forEach((row, i) => {
      const id = String(row.id);
      let entry = drawn.get(id);
      if (!entry) {
        const box = node("div", "mcp-widgets-pending-row");
        const line = node("div", "mcp-widgets-pending-line");
        const card = node("div", "mcp-widgets-pending-card");
        box.append(line, card);
        entry = { box, line, card, cardId: null, view: null };
        drawn.set(id, entry);
      }
      // Moved only when out of place: moving a row would take the focus from a field being typed in.
      if (list.children[i] !== entry.box) list.insertBefore(entry.box, list.children[i] || null);
      entry.line.textContent = row.line;
      entry.line.title = row.line;
      const ref = cards[i];
      const cardId = ref ? String(ref).replace(/^IPY_MODEL_/, "") : null;
      if (cardId !== entry.cardId) {
        forget(entry);
        entry.cardId = cardId;
        if (cardId) drawCard(entry, cardId);
      }
    });
  }

  model.on("change:title", draw);
  model.on("change:rows", draw);
  model.on("change:cards", draw);
  draw();
  return () => {
    for (const entry of drawn.values()) forget(entry);
  };
}

export default { render: renderPending };
