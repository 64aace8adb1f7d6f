// Shared by the forms' ESMs (keys.js, form_style.js are appended to this file).

// Flush probes (see Flushes in _keys.py). `flushAnswerer` makes the "msg:custom" handler that answers them
// through `channel` while `alive()`: a reply leaves after every widget update sent before it and, given the
// form (its model, or a promise of it), only once the kernel has said idle for every update of the form's
// controls (at most 5 s): the kernel may handle different comms on different threads, so arriving after
// them is not enough.
function flushAnswerer(channel, form, alive) {
  let known = form && typeof form.then !== "function" ? form : null;
  if (form && !known) form.then((found) => { known = found; }, () => {});
  return (msg) => {
    if (!msg || typeof msg.flush !== "number") return;
    const until = Date.now() + 5000;
    const reply = () => {
      if (!alive()) return;
      const busy = known && (known.get("children") || []).some((m) => m && m._pending_msgs > 0);
      if (busy && Date.now() < until) setTimeout(reply, 5);
      else channel.send({ flushed: msg.flush });
    };
    reply();
  };
}

// `answerFlushes` is the whole job for a view with its own channel: it says "ready" and returns its stop.
function answerFlushes(model, form) {
  let alive = true;
  const onFlush = flushAnswerer(model, form, () => alive);
  model.on("msg:custom", onFlush);
  model.send({ ready: true });
  return () => {
    alive = false;
    model.off("msg:custom", onFlush);
  };
}

// Python marks a field whose error shows with the class mcp-widgets-invalid (the CSS draws its border);
// screen readers need aria-invalid on the input itself, which stock widgets cannot set: keep it in step
// with the class. Returns the stop.
const INVALID = "mcp-widgets-invalid";
function markInvalid(box) {
  const sync = () => {
    for (const input of box.querySelectorAll("input, textarea, select")) {
      const invalid = Boolean(input.closest("." + INVALID));
      if (invalid && input.getAttribute("aria-invalid") !== "true") input.setAttribute("aria-invalid", "true");
      else if (!invalid && input.hasAttribute("aria-invalid")) input.removeAttribute("aria-invalid");
    }
  };
  if (typeof MutationObserver === "undefined") return () => {};  // (Node, in the tests)
  sync();
  const watch = new MutationObserver(sync);
  watch.observe(box, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  return () => watch.disconnect();
}

// Run `fn(box)` once the view's element `el` is in its box (children views are attached after they
// render: a few frames at most); returns the stop, which also stops what `fn` returned.
function inBox(el, fn) {
  let frames = 0;
  let frame = null;
  let stop = () => {};
  const look = () => {
    frame = null;
    if (el && el.parentElement) stop = fn(el.parentElement) || stop;
    else if (el && frames++ < 120) frame = requestAnimationFrame(look);
  };
  if (el && typeof requestAnimationFrame === "function") frame = requestAnimationFrame(look);
  return () => {
    if (frame !== null) cancelAnimationFrame(frame);
    stop();
  };
}
