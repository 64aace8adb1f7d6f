// A Markdown resource drawn on request (MarkdownOffer): a button, then the tree the kernel made
// (core/markdown.py) built with elements of a fixed list and text nodes only: never HTML, in a box MathJax
// is told to leave alone. `node` and `LITERAL` come from literal.js, prepended.
const TAGS = new Set([
  "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "em", "strong", "s", "code", "pre",
  "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "span",
]);

function build(item, depth) {
  if (typeof item === "string") return document.createTextNode(item);
  if (!item || typeof item !== "object" || depth > 60) return document.createTextNode("");
  const tag = TAGS.has(item.tag) ? item.tag : "span";
  const cls = typeof item.cls === "string" ? "mcp-widgets-md-" + item.cls.replace(/[^a-z]/g, "") : "";
  const el = node(tag, cls);
  for (const child of Array.isArray(item.children) ? item.children : []) el.append(build(child, depth + 1));
  return el;
}

function renderMarkdown({ model, el }) {
  const root = node("div", "mcp-widgets-markdown-offer " + LITERAL.join(" "));
  const button = node("button", "mcp-widgets-markdown-button jupyter-button");
  const body = node("div", "mcp-widgets-markdown " + LITERAL.join(" "));
  body.setAttribute("role", "document");
  root.append(button, body);
  el.append(root);
  function draw() {
    const tree = model.get("tree") || [];
    root.hidden = tree.length === 0;  // nothing read yet (or the read failed): nothing to offer
    const drawn = model.get("drawn");
    button.textContent = drawn ? "Hide Markdown" : "Show as Markdown";
    button.title = (drawn ? "Hide the drawn Markdown of " : "Draw as Markdown (no link or image is opened): ")
      + model.get("name");
    button.setAttribute("aria-expanded", drawn ? "true" : "false");
    body.hidden = !drawn;
    body.replaceChildren(...(drawn ? tree.map((item) => build(item, 0)) : []));
  }
  button.addEventListener("click", () => {
    model.set("drawn", !model.get("drawn"));
    model.save_changes();
  });
  button.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") event.stopPropagation();  // the button's, not the notebook's
  });
  const changed = () => draw();
  model.on("change:drawn", changed);
  model.on("change:tree", changed);
  draw();
  return () => {
    model.off("change:drawn", changed);
    model.off("change:tree", changed);
  };
}

export default { render: renderMarkdown };
