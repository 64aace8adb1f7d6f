// A watched resource: a status line over its contents, redrawn in place on each update.
// Every text is set as textContent (never HTML); the kernel sends text already made literal and images as
// checked data URIs. The contents come as messages, never in the widget's state (a view drawn later asks).
// `node` and `LITERAL` come from literal.js, prepended.

function render({ model, el }) {
  const root = node("div", "mcp-watch " + LITERAL.join(" "));
  root.setAttribute("role", "region");
  const head = node("div", "mcp-watch-head");
  const title = node("span", "mcp-watch-title");
  const status = node("span", "mcp-watch-status");
  status.setAttribute("aria-live", "polite");
  head.append(title, status);
  const body = node("div", "mcp-watch-body");
  root.append(head, body);
  el.append(root);

  function head_() {
    title.textContent = model.get("title");
    status.textContent = model.get("status");
    root.classList.toggle("mcp-watch-ended", !model.get("live"));
  }

  function draw(parts) {
    const made = [];
    for (const part of parts || []) {
      if (typeof part.image === "string" && part.image.startsWith("data:image/")) {
        const img = node("img", "mcp-watch-image");
        img.src = part.image;
        img.alt = part.alt || "";
        made.push(img);
      } else {
        made.push(node("pre", "mcp-watch-text", part.text || ""));
      }
    }
    body.replaceChildren(...made);
  }

  model.on("change:title", head_);
  model.on("change:status", head_);
  model.on("change:live", head_);
  model.on("msg:custom", (msg) => {
    if (msg && Array.isArray(msg.parts)) draw(msg.parts);
  });
  head_();
  model.send({ want: "parts" });
}

export default { render };
