// What our views share: elements whose text is set as textContent (never HTML), in boxes MathJax is told
// to leave alone, and other widgets' views placed in ours. Prepended to each view's own module.
const LITERAL = ["mathjax_ignore", "tex2jax_ignore"];

function node(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}

// Place `view` (made by the page's widget manager) in `host`. Attached the way the page attaches a view
// (Lumino's, or Phosphor's in ipywidgets 7, `Widget.attach`), the widgets inside it are told too: a box
// appended as a bare element showed its children without their layouts (an app view's hidden lines as
// four empty rows). Where the host is not on the page yet, or no such call is found, it is appended and
// told it is displayed.
function placeView(view, host) {
  const widget = view.luminoWidget || view.pWidget;
  let kind = widget && widget.constructor;
  while (kind && typeof kind.attach !== "function") kind = Object.getPrototypeOf(kind);
  if (kind && host.isConnected && !widget.isAttached && !widget.parent) {
    try {
      kind.attach(widget, host);
      return;
    } catch (error) {
      // appended below instead
    }
  }
  host.append(view.el);
  if (typeof view.trigger === "function") view.trigger("displayed");
}
