// An MCP App in the cell: a relay between a sandboxed iframe and the kernel, which decides everything.
// - The iframe's origin is opaque (sandbox without allow-same-origin, the document as srcdoc): the app
//   reaches nothing of this page, its cookies or Jupyter's token. Its policy comes with the document.
// - The app's frame sits in a frame of ours (the spec's sandbox proxy, `PROXY`) whose policy is only
//   `frame-src`: the app cannot take its frame to another page (a navigation, a refresh, a link, a form),
//   and a second load of its frame (even a blocked one) ends the app: the kernel hears it, and the relay
//   stops at once. Messages pass only from the app's own frame, from an opaque origin ("null").
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

// The frame around the app's: relays between the app's frame and this page, both ways, and says when the
// app's frame loads a second time (its document is no longer the app's: nothing passes after that).
// Messages named ui/notifications/sandbox-* are the proxy's own (the spec reserves them), never the app's.
const PROXY = `(() => {
  const app = document.getElementById("app");
  let loads = 0;
  let left = false;
  const leave = (why) => {
    if (left) return;
    left = true;
    app.remove();
    parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-app-left", params: { why } }, "*");
  };
  app.addEventListener("load", () => {
    loads += 1;
    if (loads > 1) leave("navigated");
  });
  addEventListener("message", (event) => {
    if (left) return;
    if (event.source === parent) {
      if (app.contentWindow) app.contentWindow.postMessage(event.data, "*");
      return;
    }
    if (event.source !== app.contentWindow) return;
    if (event.origin !== "null") return leave("origin");
    const method = event.data && event.data.method;
    if (typeof method === "string" && method.startsWith("ui/notifications/sandbox-")) return;
    parent.postMessage(event.data, "*");
  });
})();`;

const attribute = (text) => String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

// The proxy's document: its policy (the kernel's, only frame-src: the app's frame inherits it), the app's
// frame with the app's document, and the relay. The app's frame fills it; it takes the page's colour scheme.
function proxyDocument(html, allow, frames) {
  return '<!DOCTYPE html><html><head><meta charset="utf-8">'
    + `<meta http-equiv="Content-Security-Policy" content="${attribute(frames)}">`
    + '<style>:root{color-scheme:light dark}html,body{margin:0;height:100%;overflow:hidden;background:transparent}'
    + "iframe{display:block;border:0;width:100%;height:100%}</style></head><body>"
    + `<iframe id="app" sandbox="allow-scripts allow-forms" referrerpolicy="no-referrer" title="MCP App"`
    + ` allow="${attribute(allow)}" srcdoc="${attribute(html)}"></iframe>`
    + `<script>${PROXY}</script></body></html>`;
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
  let loads = -1; // the proxy frame's loads since its document was set: one is ours
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
  let outboxOrigin = "null";
  let flushTimer = null;
  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = null;
    if (outbox.length) send({ kind: "rpc", texts: outbox, origin: outboxOrigin });
    outbox = [];
    outboxSize = 0;
  };
  // The app's frame is no longer the app's: the kernel hears why, and nothing passes any more.
  const leave = (why) => {
    if (!live) return;
    flush();
    live = false;
    send({ kind: "left", why });
  };
  const queue = (text, origin) => {
    if (origin !== outboxOrigin) flush(); // a batch comes from one origin: the kernel takes only "null"
    outboxOrigin = origin;
    outbox.push(text);
    outboxSize += text.length;
    if (outbox.length >= MAX_BATCH || outboxSize >= MAX_MESSAGE) flush();
    else if (flushTimer === null) flushTimer = setTimeout(flush, 4);
  };
  const onMessage = (event) => {
    if (event.source !== frame.contentWindow || !live) return;
    const data = event.data;
    if (event.origin === "null" && data && data.method === "ui/notifications/sandbox-app-left") {
      leave(data.params && data.params.why === "origin" ? "origin" : "navigated");
      return;
    }
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
    queue(text, String(event.origin));
  };
  window.addEventListener("message", onMessage);
  // The proxy frame itself loads once; a second load is not ours (it cannot be the app's doing either).
  frame.addEventListener("load", () => {
    if (loads < 0) return;
    loads += 1;
    if (loads > 1) leave("navigated");
  });

  const onCustom = (msg) => {
    if (!msg || msg.view !== view) return;
    if (msg.kind === "document") {
      live = true;
      clearTimeout(notLive);
      frame.setAttribute("allow", msg.allow || "");
      loads = 0;
      frame.srcdoc = proxyDocument(msg.html, msg.allow || "", msg.frames || "frame-src 'none'");
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
      loads = -1;
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
