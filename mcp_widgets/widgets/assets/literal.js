// What the wire's and the watch's views share: elements whose text is set as textContent (never HTML),
// in boxes MathJax is told to leave alone. Prepended to each view's own module.
const LITERAL = ["mathjax_ignore", "tex2jax_ignore"];

function node(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
}
