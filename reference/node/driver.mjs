// The reference browser driver for Node: Playwright for Node, certified by the kit through the Node SDK.
//
//   pytest --driver=node:reference/node/driver.mjs#makeDriver
//
// It shares the Python reference driver's page agent (reference/browser/page_agent.js), so reads, refs and field
// privacy are the same code: the agent is the only code that reads the DOM, refs are per document, password and
// other private fields are never reported. The network policy is a Playwright route on the whole context: a
// request to an origin outside `allowedOrigins` is aborted, and a navigation there is refused with BrowserError
// before it starts.
//
// Members: state, navigate, read_page, get_page_text, find, click, type, key, scroll, scroll_to, hover,
// select_option, set_checked, click_at, hover_at, drag_path, hold_keys, read_page_scoped, read_diagnostics,
// run_script, upload_file, download_file, wait_for, screenshot, zoom, new_tab, switch_tab, close_tab: every
// member. State carries observation metadata (the bounded change history) unless the check's hints ask for
// legacy state. Every member takes the options object and stops when its signal aborts. File transfers honour
// the caller's grants (env.hints.grants) only: single use, expiring, size-limited, of their own kind.

import { randomBytes } from "node:crypto";
import { accessSync, constants, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BrowserError } from "openai/helpers/browser";
import { chromium } from "playwright";

const AGENT_SOURCE = readFileSync(fileURLToPath(new URL("../browser/page_agent.js", import.meta.url)), "utf8")
  .trim()
  .replace(/;$/, "");
// Runs in the page: the agent answers with one JSON string; a document without the agent says so.
const AGENT_CALL = ([name, method, args]) =>
  window[name] ? window[name].call(method, args) : JSON.stringify({ missing: true });
const LIMITS = { work_nodes: 100_000, text_bytes: 200_000, max_elements: 5_000, max_options: 200 };
const ACTION_TIMEOUT_MS = 10_000;
const NAVIGATION_TIMEOUT_MS = 30_000;
const SCROLL_STEP_PX = 100;
const MODIFIERS = new Set(["Control", "Alt", "Meta", "Shift"]);
const REF_ERRORS = {
  unknown: "That ref is unknown or no longer on the page; read the page again.",
  stale: "That ref is unknown or no longer on the page; read the page again.",
  scope: "That ref names a page section; element actions need an element ref.",
  role: "That control does not support this action.",
  disabled: "That control is disabled or read-only.",
  obscured: "Another element covers that control.",
  offscreen: "That control cannot be brought into view.",
  focus: "That control could not take focus.",
  no_option: "A requested value is not an available option of that control.",
  single: "That control accepts exactly one value.",
  page_tampered: "The page locked a built-in the driver needs to read it; it cannot be read.",
};
// Key names hold_keys accepts (Playwright's), and the common aliases models use; unknown names fail before any
// key is pressed.
const KEY_NAMES = new Set([
  "Alt", "Control", "Meta", "Shift", "Enter", "Escape", "Tab", "Backspace", "Delete", "Insert", "Home", "End",
  "PageUp", "PageDown", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Space", "CapsLock", "ContextMenu",
  ...Array.from({ length: 12 }, (_, index) => `F${index + 1}`),
]);
const KEY_ALIASES = {
  ctrl: "Control", control: "Control", cmd: "Meta", command: "Meta", meta: "Meta", win: "Meta", super: "Meta",
  alt: "Alt", option: "Alt", shift: "Shift", enter: "Enter", return: "Enter", esc: "Escape", escape: "Escape",
  tab: "Tab", backspace: "Backspace", delete: "Delete", del: "Delete", insert: "Insert", home: "Home", end: "End",
  pageup: "PageUp", pagedown: "PageDown", up: "ArrowUp", down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight",
  arrowup: "ArrowUp", arrowdown: "ArrowDown", arrowleft: "ArrowLeft", arrowright: "ArrowRight", space: "Space",
  capslock: "CapsLock",
};
const HOLD_STEP_MS = 50;

function keyName(raw) {
  if ([...raw].length === 1 || KEY_NAMES.has(raw)) return raw;
  const lower = raw.toLowerCase();
  const alias = KEY_ALIASES[lower] ?? (/^f\d+$/.test(lower) && KEY_NAMES.has(`F${lower.slice(1)}`) ? `F${lower.slice(1)}` : undefined);
  if (alias === undefined) throw new BrowserError("Unknown key name.");
  return alias;
}

// Runs in the page: the approved source, evaluated globally with the page's own privileges, its value as text.
// The timer bounds how long the driver waits for asynchronous work; a synchronous endless loop cannot be stopped
// from outside the page.
const RUN_SCRIPT = async ([source, ms, marker]) => {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(marker)), ms);
  });
  try {
    const value = await Promise.race([Promise.resolve().then(() => (0, eval)(source)), expired]);
    if (value === undefined) return "";
    if (typeof value === "string") return value;
    try {
      const json = JSON.stringify(value);
      return json === undefined ? String(value) : json;
    } catch {
      return String(value);
    }
  } finally {
    clearTimeout(timer);
  }
};

// Runs in the page: resolves after two frames, once what an action started has been laid out and painted.
const SETTLE = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));

// DRIVERKIT_CHROMIUM, else Debian's headless shell, else Debian's full Chromium: the same choice as the Python
// driver (reference/browser/_launch.py says why the shell comes first).
function chromiumExecutable() {
  if (process.env.DRIVERKIT_CHROMIUM) return process.env.DRIVERKIT_CHROMIUM;
  for (const candidate of ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not installed: try the next one
    }
  }
  return undefined; // Playwright's own download, where there is one
}

// Headless Chromium, with every name lookup kept local (the browser's own background traffic fails inside it).
export function launchChromium() {
  return chromium.launch({
    executablePath: chromiumExecutable(),
    headless: true,
    args: ["--disable-gpu", "--disable-quic", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"],
  });
}

function originOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

// Page URLs as reported: credentials never leave the driver.
function withoutCredentials(url) {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return url;
  }
}

function stopIfAborted(signal) {
  if (signal?.aborted) throw new BrowserError("Browser execution was cancelled.");
}

// `work` unless the signal aborts first; an abort rejects at once (the work itself is then left to finish).
function untilAborted(signal, work) {
  if (!signal) return work;
  stopIfAborted(signal);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new BrowserError("Browser execution was cancelled."));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

// Diagnostics: console and network summaries kept per tab (the oldest dropped), never message text, headers,
// cookies, queries or bodies.
const DIAGNOSTICS_HISTORY = 200;
const DIAGNOSTICS_REPORT_LIMIT = 100;
const PATH_LIMIT = 120;

function keepBounded(records, record) {
  records.push(record);
  if (records.length > DIAGNOSTICS_HISTORY) records.shift();
}

// Origin and path of a URL: queries, fragments and userinfo can carry secrets and are dropped.
function pathOnly(url) {
  const origin = originOf(url);
  if (origin === null) return `${String(url).split(":", 1)[0]}:`;
  const path = new URL(url).pathname;
  return origin + (path.length <= PATH_LIMIT ? path : `${path.slice(0, PATH_LIMIT - 3)}...`);
}

// File outcomes: the documented status/effect pairs only.
function fileOutcome(status, effect, cleanup) {
  return { version: 1, status, effect, cleanup };
}
const REFUSED = () => fileOutcome("refused", "none", "not_started");

// The caller's file grants (the kit's env.hints.grants): single use, expiring, size-limited, of one kind. Upload
// grants carry the bytes; a download grant names the file to receive, and the bytes it receives stay here for
// the caller, never on a path the model chose.
class GrantStore {
  constructor(grants = []) {
    const now = Date.now();
    this.grants = new Map(
      grants.map((grant) => [
        grant.grant_id,
        {
          ...grant,
          content: Buffer.from(grant.content_base64 ?? "", "base64"),
          expiresAt: now + grant.expires_in_s * 1000,
          used: false,
          received: null,
        },
      ]),
    );
  }

  // Consumes the grant for one transfer (so a failed transfer cannot be retried under it), or null when it is
  // unknown, expired, used, too big or of the other kind.
  redeem(grantId, kind) {
    const grant = this.grants.get(grantId);
    if (!grant || grant.kind !== kind || grant.used || Date.now() >= grant.expiresAt || grant.content.length > grant.max_bytes) {
      return null;
    }
    grant.used = true;
    return grant;
  }
}

const TITLE_LIMIT_BYTES = 1024;
const HISTORY = 64;
const DIALOG_KINDS = new Set(["alert", "confirm", "prompt", "beforeunload"]);
const encoder = new TextEncoder();

// `text` cut to at most `limit` UTF-8 bytes without splitting a character, and whether it was cut.
function truncateUtf8(text, limit) {
  const data = encoder.encode(text);
  if (data.length <= limit) return [text, false];
  let cut = limit;
  while (cut > 0 && (data[cut] & 0xc0) === 0x80) cut -= 1;
  return [new TextDecoder().decode(data.subarray(0, cut)), true];
}

// A bounded history of state changes with gapless sequence numbers. Reading it never consumes it: every state
// report repeats the retained changes, and the oldest fall off into dropped_changes once it is full.
class ChangeLog {
  constructor(capacity) {
    this.capacity = capacity;
    this.changes = [];
    this.sequence = 0;
    this.dropped = 0;
  }

  add(change) {
    this.sequence += 1;
    this.changes.push({ ...change, sequence: this.sequence });
    while (this.changes.length > this.capacity) {
      this.changes.shift();
      this.dropped += 1;
    }
  }

  snapshot(titleTruncated) {
    return {
      version: 1,
      sequence: this.sequence,
      dropped_changes: this.dropped,
      title_truncated: titleTruncated,
      changes: this.changes.map((change) => ({ ...change })),
    };
  }
}

export class PlaywrightNodeDriver {
  // `bindTargets`: consent is tied to a control, so `type` needs a target ref and `key` (which acts wherever the
  // focus is) is not offered at all.
  static async create(
    browser,
    {
      allowedOrigins,
      startUrl,
      viewport = [1280, 720],
      observation = true,
      grants = [],
      bindTargets = false,
      history = HISTORY,
    },
  ) {
    const context = await browser.newContext({
      viewport: { width: viewport[0], height: viewport[1] },
      acceptDownloads: false,
      serviceWorkers: "block",
    });
    const driver = new PlaywrightNodeDriver(context, allowedOrigins, observation, history);
    driver.grants = new GrantStore(grants);
    driver.bindTargets = bindTargets;
    // An own property hides the method, so the toolset never registers `key`.
    if (bindTargets) driver.key = undefined;
    await context.addInitScript(driver.agentScript);
    await context.route("**/*", (route) => driver.guard(route));
    // The guard answers every page with route.fulfill, and Chromium then counts the page as public, so its Local
    // Network Access checks would block the page's own WebSocket back to a loopback origin (the kit's fixture
    // pages keep one open to the harness). Only the origins the driver already allows get that permission.
    for (const origin of driver.allowed) {
      if (origin !== null) await context.grantPermissions(["local-network-access"], { origin });
    }
    // Service workers would fetch around the route; the reference driver never lets a page register one.
    context.on("page", (page) => driver.adopt(page, driver.tabs.size > 0));
    await context.newPage();
    if (startUrl) await driver.navigate({ url: startUrl, tab_id: null }, {});
    return driver;
  }

  constructor(context, allowedOrigins, observation = true, history = HISTORY) {
    this.context = context;
    this.observation = observation;
    this.log = new ChangeLog(history);
    this.allowed = new Set(allowedOrigins.map(originOf));
    this.agentName = `__rdk_${randomBytes(8).toString("hex")}`;
    this.agentScript = `(${AGENT_SOURCE})(${JSON.stringify(this.agentName)});`;
    this.tabs = new Map(); // id -> page
    // Main-frame navigations per tab, and their count at the last state() report: with bound consent, input that
    // names no control is tied to the document that report showed (the one the caller approved against).
    this.documents = new Map();
    this.observed = new Map();
    this.diagnostics = new WeakMap(); // page -> { console, network }
    this.ids = new WeakMap(); // page -> id
    this.active = null;
    this.nextId = 1;
  }

  // Playwright routes see a request's first hop only; the browser would follow a redirect on its own. So an
  // allowed request is fetched here without following redirects, and a redirect is handed to the browser as the
  // response: the browser's next hop is a new request that comes through this guard again.
  async guard(route) {
    const url = route.request().url();
    const origin = originOf(url);
    if (origin === null && /^(data|blob|about):/.test(url)) return route.continue();
    if (origin === null || !this.allowed.has(origin)) return route.abort("blockedbyclient");
    try {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = response.status() >= 300 && response.status() < 400 ? response.headers().location : undefined;
      // A redirect onward is checked here too: Chromium does not route every redirected hop again.
      if (location !== undefined && !this.allowed.has(originOf(new URL(location, url).href))) {
        return await route.abort("blockedbyclient");
      }
      return await route.fulfill({ response });
    } catch {
      return route.abort("failed").catch(() => {});
    }
  }

  // A new page of the context becomes the active tab; `announce` logs it (the first page is not news).
  adopt(page, announce) {
    if (this.ids.has(page)) return;
    const id = `tab-${this.nextId++}`;
    this.ids.set(page, id);
    this.tabs.set(id, page);
    this.active = id;
    if (announce) this.log.add({ type: "tab_opened", tab_id: id });
    page.on("close", () => {
      if (!this.tabs.delete(id)) return;
      this.log.add({ type: "tab_closed", tab_id: id });
      if (this.active === id) this.active = [...this.tabs.keys()].at(-1) ?? null;
    });
    page.on("framenavigated", (frame) => {
      if (frame !== page.mainFrame()) return;
      this.documents.set(id, (this.documents.get(id) ?? 0) + 1);
      this.log.add({ type: "navigation", tab_id: id });
    });
    page.on("download", () => this.log.add({ type: "download", tab_id: id, status: "blocked" }));
    const diagnostics = { console: [], network: [] };
    this.diagnostics.set(page, diagnostics);
    page.on("console", (message) => {
      keepBounded(diagnostics.console, { level: message.type(), origin: originOf(message.location()?.url ?? "") ?? "page" });
    });
    page.on("response", (response) => {
      const request = response.request();
      const record = { method: request.method(), url: pathOnly(response.url()), status: response.status(), type: request.resourceType() };
      keepBounded(diagnostics.network, record);
    });
    page.on("requestfailed", (request) => {
      // The network guard aborts what the policy refuses as "blocked by client".
      const blocked = /BLOCKED_BY_CLIENT/.test(request.failure()?.errorText ?? "");
      const record = { method: request.method(), url: pathOnly(request.url()), status: blocked ? "blocked" : null, type: request.resourceType() };
      keepBounded(diagnostics.network, record);
    });
    page.on("dialog", (dialog) => {
      const kind = DIALOG_KINDS.has(dialog.type()) ? dialog.type() : "other";
      this.log.add({ type: "dialog_dismissed", tab_id: id, kind });
      dialog.dismiss().catch(() => {});
    });
  }

  page(tabId) {
    const id = tabId ?? this.active;
    const page = id === null ? undefined : this.tabs.get(id);
    if (!page) throw new BrowserError(tabId === null ? "There is no open tab." : "There is no tab with that ID.");
    return page;
  }

  async agent(page, method, ...args) {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const result = JSON.parse(await page.evaluate(AGENT_CALL, [this.agentName, method, args]));
      if (!(result && result.missing)) return result;
      await page.evaluate(this.agentScript);
    }
    throw new BrowserError("The page is not ready for reading.");
  }

  async answer(page, method, ...args) {
    const result = await this.agent(page, method, ...args);
    if (!result || typeof result !== "object") throw new BrowserError("The page did not answer.");
    if (result.error) throw new BrowserError(REF_ERRORS[result.error] ?? "The page refused that action.");
    return result;
  }

  async read(page, options, method = "read") {
    const raw = await this.answer(page, method, { ...options, limits: LIMITS, allowed: [...this.allowed] });
    if (typeof raw.text !== "string" || !Array.isArray(raw.elements) || !Array.isArray(raw.omitted)) {
      // Only a page that tampers with the agent's environment gets here; it gets no partial report.
      throw new BrowserError("The page's answer was not a page read.");
    }
    const seen = new Set();
    const elements = raw.elements.filter((element) => !seen.has(element.ref) && seen.add(element.ref));
    return [{ version: 1, text: raw.text, elements, omitted: [...new Set(raw.omitted)] }, raw];
  }

  // Legacy state reports page URLs without credentials; with observation metadata, origins only (or
  // about:blank) and titles cut to 1,024 UTF-8 bytes, saying so.
  // Declares its options (length 1), so the SDK hands it the run's signal: a title read left waiting on a busy
  // page ends once the caller stops the run instead of when the page is free again.
  async state(options) {
    const signal = options?.signal;
    stopIfAborted(signal);
    const tabs = [];
    let truncated = false;
    for (const [id, page] of this.tabs) {
      let title;
      try {
        title = await untilAborted(signal, page.title());
      } catch (error) {
        if (signal?.aborted) throw error;
        title = ""; // a page in the middle of navigating has no title to report yet
      }
      title = String(title).toWellFormed();
      let url = withoutCredentials(page.url());
      if (this.observation) {
        const [cut, wasCut] = truncateUtf8(title, TITLE_LIMIT_BYTES);
        title = cut;
        truncated ||= wasCut;
        url = originOf(url) ?? "about:blank";
      }
      tabs.push({ id, title, url, active: id === this.active });
    }
    if (tabs.length && !tabs.some((tab) => tab.active)) {
      tabs.at(-1).active = true;
      this.active = tabs.at(-1).id;
    }
    this.observed = new Map([...this.tabs.keys()].map((id) => [id, this.documents.get(id) ?? 0]));
    return this.observation ? { tabs, observation: this.log.snapshot(truncated) } : { tabs };
  }

  // With bound consent, refuse input that names no control once the tab left the document state() last showed.
  boundToObserved(tabId) {
    if (!this.bindTargets) return;
    const id = tabId ?? this.active;
    if (this.observed.get(id) !== (this.documents.get(id) ?? 0)) {
      throw new BrowserError("The page changed since it was last observed; read the state again before acting.");
    }
  }

  refuse(tabId, message) {
    this.log.add({ type: "navigation_refused", tab_id: tabId, reason: "policy" });
    return new BrowserError(message);
  }

  async navigate({ url, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    if (!this.allowed.has(originOf(url))) throw this.refuse(this.ids.get(page), "That URL is outside the allowed origins.");
    try {
      await untilAborted(signal, page.goto(url, { timeout: NAVIGATION_TIMEOUT_MS, waitUntil: "load" }));
    } catch (error) {
      if (error instanceof BrowserError) throw error;
      throw new BrowserError("The page could not be loaded.");
    }
    return undefined;
  }

  async read_page({ tab_id, filter }, { signal }) {
    stopIfAborted(signal);
    return (await this.read(this.page(tab_id), { mode: filter === "interactive" ? "interactive" : "all" }))[0];
  }

  async get_page_text({ tab_id }, { signal }) {
    stopIfAborted(signal);
    const [report] = await this.read(this.page(tab_id), { mode: "text" });
    return { ...report, elements: [] };
  }

  async find({ query, tab_id }, { signal }) {
    stopIfAborted(signal);
    return (await this.read(this.page(tab_id), { mode: "find", query }))[0];
  }

  // One section of the page (`root` a scope ref, or null for the top), `depth` levels of sections down; the
  // sections not read are listed as scopes to read next.
  async read_page_scoped({ tab_id, root, depth, filter }, { signal }) {
    stopIfAborted(signal);
    const [report, raw] = await this.read(this.page(tab_id), { root, depth, filter }, "readScoped");
    const refs = new Set(report.elements.map((element) => element.ref));
    const scopes = (raw.scopes ?? [])
      .filter((scope) => !refs.has(scope.ref))
      .map((scope) => ({ ref: scope.ref, label: String(scope.label).toWellFormed() || "section" }));
    return { ...report, scopes };
  }

  async click({ target, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    const point = await this.answer(page, "point", target, { enabled: true, hit: true });
    stopIfAborted(signal);
    await page.mouse.click(point.x, point.y);
    return undefined;
  }

  // Coordinates are CSS pixels of the full viewport, checked against it before any input is sent.
  inside(page, points) {
    const { width, height } = page.viewportSize();
    for (const { x, y } of points) {
      if (!(x >= 0 && x < width && y >= 0 && y < height)) {
        throw new BrowserError("Those coordinates are outside the current viewport.");
      }
    }
  }

  // Presses `modifiers`, runs `act`, and always releases them in reverse, even when `act` fails.
  async holding(page, modifiers, act) {
    if (new Set(modifiers).size !== modifiers.length || modifiers.some((name) => !MODIFIERS.has(name))) {
      throw new BrowserError("Modifiers must be unique names among Control, Alt, Meta and Shift.");
    }
    const held = [];
    try {
      for (const name of modifiers) {
        await page.keyboard.down(name);
        held.push(name);
      }
      await act();
    } finally {
      for (const name of held.reverse()) await page.keyboard.up(name);
    }
  }

  async click_at({ tab_id, x, y, button, click_count, keys }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    this.boundToObserved(tab_id);
    this.inside(page, [{ x, y }]);
    await this.holding(page, keys, () => page.mouse.click(x, y, { button, clickCount: click_count }));
    return undefined;
  }

  async hover_at({ tab_id, x, y }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    this.boundToObserved(tab_id);
    this.inside(page, [{ x, y }]);
    await page.mouse.move(x, y);
    return undefined;
  }

  async drag_path({ tab_id, path, keys }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    this.boundToObserved(tab_id);
    if (path.length < 2 || path.length > 100) throw new BrowserError("A drag path has 2 to 100 points.");
    this.inside(page, path);
    await this.holding(page, keys, async () => {
      await page.mouse.move(path[0].x, path[0].y);
      await page.mouse.down();
      try {
        for (const point of path.slice(1)) await page.mouse.move(point.x, point.y);
      } finally {
        await page.mouse.up();
      }
    });
    return undefined;
  }

  async hover({ target, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    const point = await this.answer(page, "point", target, { enabled: false, hit: true });
    stopIfAborted(signal);
    await page.mouse.move(point.x, point.y);
    return undefined;
  }

  async scroll_to({ target, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    await this.answer(page, "scrollTo", target);
    await page.evaluate(SETTLE);
    return undefined;
  }

  async select_option({ target, values, tab_id }, { signal }) {
    stopIfAborted(signal);
    await this.answer(this.page(tab_id), "select", target, values);
    return undefined;
  }

  // Clicks a checkbox only when its state differs, so a repeated request leaves it as it is.
  async set_checked({ target, checked, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    const current = await this.answer(page, "checkedState", target);
    if (current.checked === checked) return undefined;
    if (current.disabled) throw new BrowserError(REF_ERRORS.disabled);
    const point = await this.answer(page, "point", target, { enabled: true, hit: true, role: "checkbox" });
    stopIfAborted(signal);
    await page.mouse.click(point.x, point.y);
    const after = await this.answer(page, "checkedState", target);
    if (after.checked !== checked) throw new BrowserError("The checkbox did not change state.");
    return undefined;
  }

  async type({ text, target, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    // The current focus is not part of what the caller approved: only a ref binds typing to a control.
    if (target === null && this.bindTargets) throw new BrowserError("Typing needs a target ref in this browser.");
    if (target !== null) {
      const point = await this.answer(page, "point", target, { enabled: true, hit: true });
      await page.mouse.click(point.x, point.y);
      await this.answer(page, "selectContents", target);
    }
    stopIfAborted(signal);
    await page.keyboard.insertText(text);
    return undefined;
  }

  async key({ keys, tab_id }, { signal }) {
    stopIfAborted(signal);
    if (keys.length === 0) throw new BrowserError("Name at least one key.");
    const page = this.page(tab_id);
    try {
      await page.keyboard.press(keys.join("+"), { timeout: ACTION_TIMEOUT_MS });
    } catch {
      throw new BrowserError("That key combination is not supported.");
    }
    return undefined;
  }

  async scroll({ direction, amount, tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    this.boundToObserved(tab_id);
    const step = amount * SCROLL_STEP_PX;
    const [dx, dy] = { up: [0, -step], down: [0, step], left: [-step, 0], right: [step, 0] }[direction];
    await page.mouse.wheel(dx, dy);
    return undefined;
  }

  async wait_for({ text, timeout_ms, tab_id }, { signal }) {
    const page = this.page(tab_id);
    const deadline = Date.now() + timeout_ms;
    for (;;) {
      stopIfAborted(signal);
      if ((await this.agent(page, "hasText", text)) === true) return undefined;
      if (Date.now() >= deadline) throw new BrowserError("The text did not appear in time.");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async screenshot({ tab_id }, { signal }) {
    stopIfAborted(signal);
    const data = await this.page(tab_id).screenshot({ type: "png" });
    return { type: "input_image", image_url: `data:image/png;base64,${data.toString("base64")}`, detail: "auto" };
  }

  // Puts a granted file into the page's file input (the focused one, or the only visible one).
  async upload_file({ grant_id }, { signal }) {
    if (signal?.aborted) return fileOutcome("interrupted", "none", "not_started");
    const page = this.page(null);
    const grant = this.grants.redeem(grant_id, "upload");
    if (!grant) return REFUSED();
    const handle = await page.evaluateHandle((name) => window[name]?.fileInput(), this.agentName);
    try {
      const element = handle.asElement();
      if (!element) return REFUSED();
      if (signal?.aborted) return fileOutcome("interrupted", "none", "completed");
      try {
        await element.setInputFiles([{ name: grant.file_name, mimeType: "application/octet-stream", buffer: grant.content }]);
      } catch {
        return fileOutcome("unknown", "unknown", "pending");
      }
      return fileOutcome("completed", "completed", "completed");
    } finally {
      await handle.dispose().catch(() => {});
    }
  }

  // Fetches a file the page offers under the granted name (a link in the active page) through the context, on an
  // allowed origin and without following redirects, and keeps the bytes for the grant's owner.
  async download_file({ grant_id }, { signal }) {
    if (signal?.aborted) return fileOutcome("interrupted", "none", "not_started");
    const page = this.page(null);
    const grant = this.grants.redeem(grant_id, "download");
    if (!grant) return REFUSED();
    const source = await this.agent(page, "downloadLink", grant.file_name);
    if (typeof source !== "string" || !this.allowed.has(originOf(source))) return REFUSED();
    let response;
    try {
      response = await this.context.request.get(source, { maxRedirects: 0, timeout: NAVIGATION_TIMEOUT_MS });
    } catch {
      return fileOutcome("unknown", "unknown", "not_started");
    }
    try {
      if (signal?.aborted) return fileOutcome("interrupted", "none", "completed");
      if (response.status() !== 200) return fileOutcome("unknown", "unknown", "completed");
      const size = response.headers()["content-length"];
      if (size !== undefined && /^\d+$/.test(size) && Number(size) > grant.max_bytes) {
        return fileOutcome("refused", "none", "completed");
      }
      const body = await response.body();
      if (body.length > grant.max_bytes) return fileOutcome("refused", "none", "completed");
      grant.received = body;
      return fileOutcome("completed", "completed", "completed");
    } finally {
      await response.dispose().catch(() => {});
    }
  }

  async run_script({ tab_id, source, timeout_ms }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    if (!this.allowed.has(originOf(page.url()))) throw new BrowserError("Scripts run only in pages on a permitted origin.");
    if (!source) throw new BrowserError("The script is empty.");
    const marker = `rdk-script-timeout-${this.agentName}`;
    let result;
    try {
      result = await untilAborted(signal, page.evaluate(RUN_SCRIPT, [source, timeout_ms, marker]));
    } catch (error) {
      if (error instanceof BrowserError) throw error;
      if (String(error?.message).includes(marker)) throw new BrowserError("The script did not finish within its timeout.");
      throw new BrowserError("The script failed.");
    }
    return String(result).toWellFormed();
  }

  // Summaries only: console levels and origins (never message text), network method, path, type and status.
  async read_diagnostics({ tab_id, source, limit }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    // Let page events that are on their way arrive first.
    await page.evaluate(() => 0).catch(() => {});
    const diagnostics = this.diagnostics.get(page) ?? { console: [], network: [] };
    const bound = Math.max(1, Math.min(limit, DIAGNOSTICS_REPORT_LIMIT));
    const records = source === "console" ? diagnostics.console : diagnostics.network;
    const shown = records.slice(-bound);
    const lines =
      source === "console"
        ? shown.map((record) => `console.${record.level} from ${record.origin} (text withheld)`)
        : shown.map((record) => `${record.method} ${record.url} ${record.type} -> ${record.status === null ? "failed" : record.status}`);
    const omitted = [];
    // Message text, queries and headers are withheld.
    if (records.length) omitted.push("private");
    if (records.length > bound) omitted.push("report_limit");
    return { version: 1, text: lines.join("\n").toWellFormed(), elements: [], omitted };
  }

  // A region of the viewport, [left, top, right, bottom] in the same CSS pixels as the coordinate members.
  async zoom({ tab_id, region }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    if (!Array.isArray(region) || region.length !== 4) throw new BrowserError("A zoom region is [left, top, right, bottom].");
    const [left, top, right, bottom] = region;
    const { width, height } = page.viewportSize();
    if (!(left >= 0 && left < right && right <= width && top >= 0 && top < bottom && bottom <= height)) {
      throw new BrowserError("The zoom region must lie inside the current viewport.");
    }
    const clip = { x: left, y: top, width: right - left, height: bottom - top };
    const data = await this.page(tab_id).screenshot({ type: "png", clip });
    return { type: "input_image", image_url: `data:image/png;base64,${data.toString("base64")}`, detail: "auto" };
  }

  // Presses every key, holds them for the duration (ending early when the signal aborts), then releases them in
  // reverse, whatever happens.
  async hold_keys({ tab_id, keys, duration_ms }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    if (!(duration_ms >= 1 && duration_ms <= 3000)) throw new BrowserError("The hold duration is 1 to 3000 milliseconds.");
    const names = keys.map(keyName);
    if (new Set(names).size !== names.length) throw new BrowserError("Held keys must be unique.");
    const held = [];
    try {
      for (const name of names) {
        await page.keyboard.down(name);
        held.push(name);
      }
      const deadline = Date.now() + duration_ms;
      while (Date.now() < deadline && !signal?.aborted) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(HOLD_STEP_MS, deadline - Date.now())));
      }
    } finally {
      for (const name of held.reverse()) await page.keyboard.up(name);
    }
    return undefined;
  }

  async new_tab({ url }, { signal }) {
    stopIfAborted(signal);
    if (url !== null && !this.allowed.has(originOf(url))) throw this.refuse(null, "That URL is outside the allowed origins.");
    const page = await this.context.newPage();
    this.adopt(page, true);
    this.active = this.ids.get(page);
    if (url !== null) await this.navigate({ url, tab_id: this.active }, { signal });
    return undefined;
  }

  async switch_tab({ tab_id }, { signal }) {
    stopIfAborted(signal);
    const page = this.page(tab_id);
    await page.bringToFront();
    if (this.active !== tab_id) this.log.add({ type: "tab_switched", tab_id });
    this.active = tab_id;
    return undefined;
  }

  async close_tab({ tab_id }, { signal }) {
    stopIfAborted(signal);
    await this.page(tab_id).close();
    return undefined;
  }

  async close() {
    await this.context.close();
  }
}

// The kit's factory: one Chromium per Node host (so per xdist worker), one guarded context per check.
export async function makeDriver(env) {
  const browser = await env.shared("reference.node.chromium", launchChromium, (shared) => shared.close());
  return PlaywrightNodeDriver.create(browser, {
    allowedOrigins: env.allowed_origins,
    startUrl: env.start_url,
    viewport: env.hints.viewport,
    observation: env.hints.observation,
    grants: env.hints.grants,
    bindTargets: env.hints.bind_targets,
    // The change-history bound a check asks for (env.hints.limits.history), else the driver's own.
    history: env.hints.limits?.history ?? HISTORY,
  });
}
