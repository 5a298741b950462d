// The kit's Node host: runs a JavaScript or TypeScript browser driver for the Python side of the kit.
//
// It speaks JSON lines over stdio. Each request is {"id", "op", ...}; each final answer is {"id", "ok": true,
// "value"} or {"id", "ok": false, "error": {"class", "message", "browser_error"}}. While a call runs, the host
// also sends {"id", "event": "begin" | "end", ...} lines, one pair per driver method the call reached, so the
// Python side records each driver call as it happens (and can name the one that hangs).
//
// Ops: load (the driver module and its factory export, and the Node SDK the driver runs under), open (the factory
// with this check's environment), call (a driver method, directly), execute (a member through the Node SDK's
// BrowserToolset), invoke (an export of any ESM module), abort (the cancellation of a running call), close (the
// driver's optional close), shutdown; and the computer_* ops of computer.mjs for computer drivers.
//
// Cancellation: Python checks hand the kit a `cancelled` predicate; Node drivers receive an AbortSignal. A request
// carries `cancelled: true` when the predicate was already true (the signal starts aborted), `false` for a live
// signal that a later {"op": "abort"} aborts, or no key at all for no signal (the SDK's `signal: undefined`).
// Plain ESM with no dependencies of its own: it ships as package data and runs as is.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

import { computerOps } from "./computer.mjs";

const hostFile = fileURLToPath(import.meta.url);
const drivers = new Map(); // handle -> { driver, close }
const controllers = new Map(); // request id -> AbortController of a running call
const deciders = new Map(); // request id -> what approves its pending confirm (see execute's `deciding`)
const shared = new Map(); // key -> { value, close }, one resource per host (so per xdist worker)
// Promise rejections nobody handled (a route handler that fails after its context closed, say). Node would end
// the process; a Python driver's failed leftover task does not end the run either, so the host keeps them (at most
// STRAYS_KEPT) and reports them when the driver closes, as a note on the certificate.
const STRAYS_KEPT = 5;
const strays = [];
let straysSeen = 0;
process.on("unhandledRejection", (reason) => {
  straysSeen += 1;
  if (strays.length < STRAYS_KEPT) strays.push(`${describe(reason).class}: ${describe(reason).message}`);
});
let factory = null;
let sdk = null;
let handles = 0;

// The protocol owns stdout; a driver's console.log must not corrupt it, so console output goes to stderr.
const protocol = process.stdout;
for (const level of ["log", "info", "debug", "warn"]) console[level] = (...args) => console.error(...args);

function send(message) {
  protocol.write(encode(message) + "\n");
}

// JSON of a driver's value. `undefined` has no JSON form and stays absent; BigInt becomes its decimal text; a
// cycle or another value JSON refuses is reported, so the Python side never receives half a line.
function encode(message) {
  return JSON.stringify(message, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}

function describe(error) {
  const isError = error instanceof Error;
  const name = isError ? error.name || error.constructor?.name || "Error" : typeof error;
  const message = isError ? String(error.message) : String(error);
  return { class: name, message, browser_error: Boolean(sdk && error instanceof sdk.BrowserError) };
}

function serializable(value) {
  try {
    encode(value);
    return { value };
  } catch (error) {
    return { unserializable: `${describe(error).class}: ${describe(error).message}` };
  }
}

// Which file of an npm package an ESM import of `specifier` reaches from `parent`: read from the package's own
// exports map, so the host loads the very module instance the driver imported (the CommonJS twin of the Node
// SDK would have its own BrowserError class, and `instanceof` across the two would always be false).
function resolveImport(specifier, parent) {
  const [scopeOrName, ...rest] = specifier.split("/");
  const name = scopeOrName.startsWith("@") ? `${scopeOrName}/${rest.shift()}` : scopeOrName;
  const subpath = rest.length ? `./${rest.join("/")}` : ".";
  const manifestPath = packageManifest(name, parent);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const exports = manifest.exports ?? {};
  let target = exports[subpath];
  let star = null;
  if (target === undefined) {
    // A subpath pattern ("./helpers/*"): the one key whose prefix and suffix enclose the subpath.
    for (const [key, value] of Object.entries(exports)) {
      const [prefix, suffix, extra] = key.split("*");
      if (suffix === undefined || extra !== undefined) continue;
      if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= prefix.length + suffix.length) {
        target = value;
        star = subpath.slice(prefix.length, subpath.length - suffix.length);
        break;
      }
    }
  }
  while (target && typeof target === "object") target = target.import ?? target.default ?? target.node;
  if (typeof target !== "string") throw new Error(`${name} has no ESM export ${subpath}`);
  if (star !== null) target = target.replaceAll("*", star);
  return { file: path.join(path.dirname(manifestPath), target), version: String(manifest.version) };
}

// The package.json of `name` as Node's lookup finds it from `parent` (the nearest node_modules folder up the tree);
// read by path, because a package's exports map need not export its own package.json.
function packageManifest(name, parent) {
  for (let folder = path.dirname(parent); ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, "node_modules", name, "package.json");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(folder) === folder) break;
  }
  throw new Error(`${name} is not installed in any node_modules folder above ${path.dirname(parent)}`);
}

// The Node SDK's helper module (`browser` or `computer`) a driver runs under: the driver's own `openai` first (the
// SDK it really runs under), else the one installed with the kit.
async function loadSdk(driverFile, helper = "browser") {
  const problems = [];
  for (const parent of [driverFile, hostFile]) {
    try {
      const found = resolveImport(`openai/helpers/${helper}`, parent);
      const module = await import(pathToFileURL(found.file).href);
      return { ...module, version: found.version, file: found.file };
    } catch (error) {
      problems.push(`from ${parent}: ${describe(error).message}`);
    }
  }
  throw new Error(`the npm package openai (with helpers/${helper}) cannot be loaded (${problems.join("; ")})`);
}

function playwrightVersion(driverFile) {
  for (const name of ["playwright", "playwright-core"]) {
    try {
      const manifest = packageManifest(name, driverFile);
      return `${name} ${JSON.parse(readFileSync(manifest, "utf8")).version}`;
    } catch {
      continue;
    }
  }
  return null;
}

// A driver module's factory export (which must be a function) and the Node SDK helper module it runs under.
async function loadDriver({ module, export: exportName }, helper = "browser") {
  const file = path.resolve(module);
  const loaded = await import(pathToFileURL(file).href);
  const factory = loaded[exportName];
  if (typeof factory !== "function") {
    const names = Object.keys(loaded).join(", ") || "none";
    throw new TypeError(`${module} exports no function ${exportName} (its exports: ${names})`);
  }
  return { file, factory, sdk: await loadSdk(file, helper) };
}

const ops = {
  async load(request) {
    let file;
    ({ file, factory, sdk } = await loadDriver(request));
    const software = { node: process.version, "openai (npm)": sdk.version, driver: file };
    const automation = playwrightVersion(file);
    if (automation) software.automation = automation;
    return { software, members: [...sdk.BROWSER_MEMBERS] };
  },

  async open({ env }) {
    const driver = await factory(environment(env));
    if (driver === null || typeof driver !== "object" || typeof driver.state !== "function") {
      throw new TypeError(`the factory returned ${driver === null ? "null" : typeof driver}, not a driver with state()`);
    }
    handles += 1;
    const handle = `d${handles}`;
    drivers.set(handle, driver);
    const members = {};
    for (const name of sdk.BROWSER_MEMBERS) {
      // A method takes the options object ({signal}) when it declares a second parameter.
      if (name !== "list_tabs" && typeof driver[name] === "function") members[name] = driver[name].length >= 2;
    }
    return { handle, members, state_takes_options: driver.state.length >= 1 };
  },

  async call({ id, handle, member, args, cancelled }, events) {
    const driver = known(handle);
    const signal = signalFor(id, cancelled);
    const method = driver[member];
    if (member === "state") return recorded(events, member, undefined, signal !== undefined, () => method.call(driver, { signal }));
    return recorded(events, member, args, signal !== undefined, () => method.call(driver, args, { signal }));
  },

  async execute({ id, handle, member, args, cancelled, call_id, deciding }, events) {
    const driver = known(handle);
    const proxy = { state: (options) => recorded(events, "state", undefined, options?.signal !== undefined, () => driver.state(options)) };
    if (member !== "list_tabs") {
      proxy[member] = (value, options) =>
        recorded(events, member, value, options?.signal !== undefined, () => driver[member](value, options));
    }
    const approve = () => true;
    // With `deciding`, approval waits until the kit has done what a page does while a person decides (the kit
    // answers with the `decided` op).
    const confirm = deciding
      ? () => new Promise((resolve) => {
          deciders.set(id, () => resolve(true));
          events({ event: "deciding" });
        })
      : approve;
    const toolset = new sdk.BrowserToolset(proxy, { members: [member], confirm, urlPolicy: approve });
    const call = { type: "function_call", call_id, name: `browser_${member}`, arguments: JSON.stringify(args), status: "completed" };
    const signal = signalFor(id, cancelled);
    try {
      return { output: await toolset.execute(call, signal === undefined ? {} : { signal }) };
    } catch (error) {
      // The SDK stops the run (rather than answering ok: false): the Python side records it as the SDK's error.
      return { sdk_error: describe(error) };
    }
  },

  // Generic: call export `member` of the ESM module at `module` with `args` (plus this request's event sender and
  // cancellation signal). Modules stay loaded, so a module may keep objects between calls (conformance/node/js/sdk.mjs).
  async invoke({ id, module, member, args, cancelled }, events) {
    const loaded = await import(pathToFileURL(path.resolve(module)).href);
    if (typeof loaded[member] !== "function") throw new TypeError(`${module} exports no function ${member}`);
    return loaded[member](args ?? {}, { events, signal: signalFor(id, cancelled) });
  },

  async decided({ call }) {
    deciders.get(call)?.();
    deciders.delete(call);
    return null;
  },

  async abort({ call }) {
    controllers.get(call)?.abort(new DOMException("cancelled by the kit", "AbortError"));
    return null;
  },

  async close({ handle }) {
    const driver = drivers.get(handle);
    drivers.delete(handle);
    if (driver && typeof driver.close === "function") await driver.close();
    // Let rejections the close itself caused surface before reporting.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const report = { unhandled: straysSeen, examples: strays.splice(0) };
    straysSeen = 0;
    return report;
  },

  async shutdown() {
    const problems = [];
    for (const [key, entry] of [...shared.entries()].reverse()) {
      try {
        if (entry.close) await entry.close(await entry.value);
      } catch (error) {
        problems.push(`closing the shared ${key} raised ${describe(error).class}: ${describe(error).message}`);
      }
    }
    shared.clear();
    return problems;
  },
};

// Computer drivers (computer.mjs) live in the same driver table, so `close` closes them too.
Object.assign(
  ops,
  computerOps({
    register(driver) {
      handles += 1;
      drivers.set(`d${handles}`, driver);
      return `d${handles}`;
    },
    known,
    recorded,
    signalFor,
    describe,
    loadDriver,
    shareResource,
  }),
);

function known(handle) {
  const driver = drivers.get(handle);
  if (!driver) throw new Error(`no open driver ${handle} (it was closed, or the host restarted)`);
  return driver;
}

function signalFor(id, cancelled) {
  if (cancelled === undefined) return undefined;
  const controller = new AbortController();
  if (cancelled) controller.abort(new DOMException("cancelled by the kit", "AbortError"));
  else controllers.set(id, controller);
  return controller.signal;
}

async function recorded(events, member, args, withSignal, invoke) {
  events({ event: "begin", member, arguments: args ?? null, options: withSignal });
  try {
    const returned = await invoke();
    events({ event: "end", member, ...serializable(returned) });
    return returned;
  } catch (error) {
    events({ event: "end", member, raised: describe(error) });
    throw error;
  }
}

// The check's environment as the factory sees it: the Python side's JSON plus url() and shared().
function environment(json) {
  return {
    ...json,
    url(page, { origin = "main", credentials = null } = {}) {
      const base = json.session_base[origin];
      if (!base) throw new TypeError(`unknown origin ${origin}; use "main" or "other"`);
      const address = new URL(String(page).replace(/^\/+/, ""), base);
      if (credentials) {
        const [user, ...password] = String(credentials).split(":");
        address.username = user;
        address.password = password.join(":");
      }
      return address.href;
    },
    shared: shareResource,
  };
}

// The factory's shared(): one resource (a browser, say) shared by every check of this host, created on first use
// (again after a creation that failed) and closed when the host shuts down.
async function shareResource(key, create, close) {
  if (!shared.has(key)) shared.set(key, { value: Promise.resolve().then(create), close });
  try {
    return await shared.get(key).value;
  } catch (error) {
    shared.delete(key);
    throw error;
  }
}

async function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    send({ id: null, ok: false, error: { class: "ProtocolError", message: `not JSON: ${describe(error).message}` } });
    return;
  }
  const { id, op } = request;
  const run = ops[op];
  if (!run) {
    send({ id, ok: false, error: { class: "ProtocolError", message: `unknown op ${op}` } });
    return;
  }
  try {
    const value = await run(request, (event) => send({ id, ...event }));
    const answer = serializable(value);
    if ("unserializable" in answer) {
      send({ id, ok: false, error: { class: "TypeError", message: `the result cannot be sent as JSON: ${answer.unserializable}` } });
    } else {
      send({ id, ok: true, value: answer.value ?? null });
    }
  } catch (error) {
    send({ id, ok: false, error: describe(error) });
  } finally {
    controllers.delete(id);
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  if (line.trim()) void handle(line);
});
// The Python side closing stdin means the kit is done (or gone): close shared resources and leave.
input.on("close", async () => {
  await ops.shutdown().catch(() => []);
  process.exit(0);
});
send({ id: null, ready: true, node: process.version });
