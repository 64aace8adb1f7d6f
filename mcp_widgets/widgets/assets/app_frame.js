// An MCP App in the cell: a relay between a sandboxed iframe and the kernel, which decides everything.
// - The iframe's origin is opaque (sandbox without allow-same-origin, the document as srcdoc): the app
//   reaches nothing of this page, its cookies or Jupyter's token. Its policy comes with the document.
// - Messages from the iframe are taken only from its own window, as JSON text, bounded, and go to the
//   kernel unread; the kernel's answers go to the iframe as they come.
// - Each view says who it is (`view`); the kernel talks to the newest one (a reload, a second view of the
//   same output). The document is never kept in the widget's state: a saved notebook holds no app.
const MAX_MESSAGE = 1024 * 1024;
const MAX_BATCH = 500;
const MAX_HEIGHT = 2000;
const MIN_HEIGHT = 40;
const NOT_LIVE_AFTER = 4000; // ms without a document from the kernel: the kernel is not there

// The standard style variables, read from JupyterLab's theme (Notebook 7 and Voila use the same variables).
const VARIABLES = {
  "--color-background-primary": "--jp-layout-color0",
  "--color-background-secondary": "--jp-layout-color1",
  "--color-background-tertiary": "--jp-layout-color2",
  "--color-background-inverse": "--jp-inverse-layout-color0",
  "--color-background-info": "--jp-info-color3",
  "--color-background-danger": "--jp-error-color3",
  "--color-background-success": "--jp-success-color3",
  "--color-background-warning": "--jp-warn-color3",
  "--color-text-primary": "--jp-ui-font-color0",
  "--color-text-secondary": "--jp-ui-font-color1",
  "--color-text-tertiary": "--jp-ui-font-color2",
  "--color-text-inverse": "--jp-ui-inverse-font-color0",
  "--color-text-info": "--jp-info-color0",
  "--color-text-danger": "--jp-error-color1",
  "--color-text-success": "--jp-success-color1",
  "--color-text-warning": "--jp-warn-color1",
  "--color-text-disabled": "--jp-ui-font-color3",
  "--color-border-primary": "--jp-border-color1",
  "--color-border-secondary": "--jp-border-color2",
  "--color-border-tertiary": "--jp-border-color3",
  "--color-ring-primary": "--jp-brand-color1",
  "--font-sans": "--jp-ui-font-family",
  "--font-mono": "--jp-code-font-family",
  "--font-text-sm-size": "--jp-ui-font-size0",
  "--font-text-md-size": "--jp-ui-font-size1",
  "--font-text-lg-size": "--jp-ui-font-size2",
  "--border-radius-sm": "--jp-border-radius",
};

function theme() {
  const light = document.body && document.body.dataset ? document.body.dataset.jpThemeLight : undefined;
  if (light === "true") return "light";
  if (light === "false") return "dark";
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function variables(el) {
  const style = getComputedStyle(el);
  const out = {};
  for (const [name, jp] of Object.entries(VARIABLES)) {
    const value = style.getPropertyValue(jp).trim();
    if (value) out[name] = value;
  }
  return out;
}

function context(el) {
  let timeZone = "";
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    timeZone = "";
  }
  return {
    theme: theme(),
    variables: variables(el),
    width: Math.round(el.getBoundingClientRect().width),
    locale: navigator.language || "",
    timeZone,
    touch: "ontouchstart" in window,
  };
}

function render({ model, el }) {
  const view = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  el.classList.add("mcp-widgets-app");
  const frame = document.createElement("iframe");
  frame.className = "mcp-widgets-app-frame";
  // Scripts and form events run; nothing else: no same origin, no popups, no top navigation, no modals.
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("title", model.get("label") || "MCP App");
  frame.style.height = `${Math.max(MIN_HEIGHT, model.get("height") || 120)}px`;
  // The frame takes the page's colour scheme: an app that follows it (color-scheme in its document) is
  // drawn on the page, one that does not gets the browser's opaque light canvas, readable on a dark page.
  frame.style.colorScheme = theme();
  const status = document.createElement("div");
  status.className = "mcp-widgets-app-status";
  status.textContent = "Loading the app…";
  el.append(frame, status);

  let live = false;
  const say = (text) => {
    status.textContent = text;
    status.style.display = text ? "" : "none";
  };
  const notLive = setTimeout(() => {
    if (!live) say(model.get("label") ? `${model.get("label")}: not live (no kernel to run it)` : "not live");
  }, NOT_LIVE_AFTER);

  const send = (content) => model.send({ view, ...content });
  // The app's messages go in batches (a burst becomes one comm message): a relay round trip costs far more
  // than the kernel's work on a message.
  let outbox = [];
  let outboxSize = 0;
  let flushTimer = null;
  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = null;
    if (outbox.length) send({ kind: "rpc", texts: outbox });
    outbox = [];
    outboxSize = 0;
  };
  const queue = (text) => {
    outbox.push(text);
    outboxSize += text.length;
    if (outbox.length >= MAX_BATCH || outboxSize >= MAX_MESSAGE) flush();
    else if (flushTimer === null) flushTimer = setTimeout(flush, 4);
  };
  const onMessage = (event) => {
    if (event.source !== frame.contentWindow || !live) return;
    let text = null;
    try {
      text = JSON.stringify(event.data);
    } catch (e) {
      text = null;
    }
    if (typeof text !== "string" || text.length > MAX_MESSAGE) {
      const id = event.data && (typeof event.data.id === "string" || typeof event.data.id === "number")
        ? event.data.id : null;
      flush();
      send({ kind: "bad", id, reason: typeof text === "string" ? "too large" : "not JSON" });
      return;
    }
    queue(text);
  };
  window.addEventListener("message", onMessage);

  const onCustom = (msg) => {
    if (!msg || msg.view !== view) return;
    if (msg.kind === "document") {
      live = true;
      clearTimeout(notLive);
      frame.setAttribute("allow", msg.allow || "");
      frame.srcdoc = msg.html;
      say("");
    } else if (msg.kind === "rpc" && live && frame.contentWindow && Array.isArray(msg.messages)) {
      for (const message of msg.messages) frame.contentWindow.postMessage(message, "*");
    } else if (msg.kind === "download" && typeof msg.data === "string") {
      // The person said yes in the kernel's card: save the bytes as a file, never shown in the page.
      const bytes = Uint8Array.from(atob(msg.data), (c) => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = String(msg.name || "download");
      link.rel = "noopener";
      link.style.display = "none";
      el.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 30000);
    } else if (msg.kind === "size") {
      const height = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Number(msg.height) || MIN_HEIGHT));
      frame.style.height = `${height}px`;
    } else if (msg.kind === "closed") {
      live = false;
      clearTimeout(notLive);
      frame.removeAttribute("srcdoc");
      frame.src = "about:blank";
      frame.style.display = "none";
      say(msg.text || "The app was closed.");
    }
  };
  model.on("msg:custom", onCustom);

  // Theme and width follow the page (a theme switch, a resized panel).
  let last = "";
  const report = () => {
    const ctx = context(el);
    frame.style.colorScheme = ctx.theme;
    const key = JSON.stringify(ctx);
    if (key !== last) {
      last = key;
      send({ kind: "context", context: ctx });
    }
  };
  const themeWatch = new MutationObserver(report);
  if (document.body) themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  let resizeTimer = null;
  const sizeWatch = new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(report, 150);
  });
  sizeWatch.observe(el);

  const ctx = context(el);
  last = JSON.stringify(ctx);
  send({ kind: "ready", context: ctx });

  return () => {
    clearTimeout(notLive);
    clearTimeout(resizeTimer);
    clearTimeout(flushTimer);
    themeWatch.disconnect();
    sizeWatch.disconnect();
    window.removeEventListener("message", onMessage);
    model.off("msg:custom", onCustom);
    if (live) send({ kind: "gone" });
  };
}

export default { render };
