// The Node SDK side of `driverkit certify --sdk=node`: a small object broker the Python checks drive.
//
// Loaded by the host's generic `invoke` op (host.mjs). The Python side builds the Node SDK's objects (toolsets,
// runners, clients) here and calls their methods; everything the SDK calls back (drivers, functions, approvals,
// `fetch`, ledger saves, event observers) is a Python callable, so one Python definition of each scenario (its
// probes, its timeline, its cassette transport) serves both SDKs and the checks compare the same observations.
//
// Values crossing the bridge are JSON with four tagged forms:
//   {"$py": n}        a Python callable; here an async function that asks Python to run it (a "callback" event)
//   {"$js": n}        a Node object kept in `objects` (anything that is not plain data: a toolset, a runner)
//   {"$error": {...}} a thrown value (class, message, browser_error, and a runner error's call IDs)
//   {"$signal": {...}} an AbortSignal (only whether it is aborted crosses)
// Plain ESM, no dependencies besides the npm `openai` installed with the kit.

const objects = new Map(); // handle -> Node object
let handles = 0;
const waiting = new Map(); // callback number -> { resolve, reject }
let callbacks = 0;
const senders = []; // event senders of the invoke requests now running; a callback goes out through the newest
let sdk = null;

// Which npm openai: the one Node's own lookup finds from this file (the kit's node_modules), or the package folder
// `configure` names (DRIVERKIT_NODE_OPENAI on the Python side: another project's install, or a patched copy).
let packageFolder = null;

async function loadSdk() {
  if (sdk) return sdk;
  const { existsSync, readFileSync } = await import("node:fs");
  const { fileURLToPath, pathToFileURL } = await import("node:url");
  const path = await import("node:path");
  let folder = packageFolder;
  if (!folder) {
    // The package's exports map does not export package.json: find it above the resolved entry point.
    folder = path.dirname(fileURLToPath(import.meta.resolve("openai")));
    while (!existsSync(path.join(folder, "package.json")) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  }
  const file = (name) => import(pathToFileURL(path.join(folder, name)).href);
  const [client, browser, computer, runner, decisions] = await Promise.all([
    file("index.mjs"),
    file("helpers/browser.mjs"),
    file("helpers/computer.mjs"),
    file("helpers/responses-tool-runner.mjs"),
    file("helpers/decisions-tool-runner.mjs"),
  ]);
  const version = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")).version;
  sdk = { OpenAI: client.default ?? client.OpenAI, ...browser, ...computer, ...runner, ...decisions, version, folder };
  return sdk;
}

/** Use the npm openai in `folder` (its package folder) instead of the kit's; before anything is loaded. */
export async function configure({ folder }) {
  if (sdk && sdk.folder !== folder) throw new Error(`the Node SDK was already loaded from ${sdk.folder}`);
  packageFolder = folder;
  return true;
}

function isPlain(value) {
  if (value === null || typeof value !== "object") return true;
  const proto = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

export function encode(value) {
  if (value === undefined || value === null) return null;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function") return keep(value);
  if (typeof value !== "object") return value;
  if (value instanceof Error) return { $error: describe(value) };
  // A signal also stays here behind a handle, so Python can read whether it is aborted later (a live probe).
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return { $signal: { aborted: value.aborted, handle: keep(value).$js } };
  if (Array.isArray(value)) return value.map(encode);
  if (!isPlain(value)) {
    // An SDK Response is a plain object; a class instance (a toolset, a turn) stays here behind a handle, with its
    // plain data fields copied along so Python can read them without a round trip.
    const kept = keep(value);
    const fields = {};
    for (const [key, field] of Object.entries(value)) if (typeof field !== "function" && isPlain(field)) fields[key] = encode(field);
    return { ...kept, fields };
  }
  const out = {};
  for (const [key, field] of Object.entries(value)) if (field !== undefined) out[key] = encode(field);
  return out;
}

function keep(value) {
  handles += 1;
  objects.set(handles, value);
  return { $js: handles };
}

function describe(error) {
  const isError = error instanceof Error;
  const described = {
    class: isError ? error.name || error.constructor?.name || "Error" : typeof error,
    message: isError ? String(error.message) : String(error),
    browser_error: Boolean(sdk && error instanceof sdk.BrowserError),
    runner_error: Boolean(sdk && sdk.ResponsesToolRunnerError && error instanceof sdk.ResponsesToolRunnerError),
  };
  if (isError && Array.isArray(error.attemptedCallIds)) {
    described.attempted_call_ids = [...error.attemptedCallIds];
    described.completed_call_ids = [...(error.completedCallIds ?? [])];
  }
  return described;
}

function decode(value) {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  if ("$py" in value) return pythonFunction(value.$py);
  if ("$js" in value) return known(value.$js);
  if ("$error" in value) return rebuild(value.$error);
  if ("$undefined" in value) return undefined;
  const out = {};
  for (const [key, field] of Object.entries(value)) out[key] = decode(field);
  return out;
}

function rebuild(described) {
  if (described.browser_error && sdk) return new sdk.BrowserError(String(described.message));
  const error = new Error(String(described.message));
  error.name = String(described.class || "Error");
  return error;
}

function known(handle) {
  if (!objects.has(handle)) throw new Error(`no Node object ${handle} (it was released, or the host restarted)`);
  return objects.get(handle);
}

// A Python callable as a Node function: each call goes to Python as a "callback" event and waits for `answer`.
function pythonFunction(id) {
  return (...args) =>
    new Promise((resolve, reject) => {
      const send = senders[senders.length - 1];
      if (!send) {
        reject(new Error("a Python callback was called while no request from Python was running"));
        return;
      }
      callbacks += 1;
      waiting.set(callbacks, { resolve, reject });
      send({ event: "callback", cb: callbacks, fn: id, args: args.map(encode) });
    });
}

async function running(events, work) {
  senders.push(events);
  try {
    return encode(await work());
  } catch (error) {
    // Thrown values travel as a value: the host's own error form would lose a runner error's call IDs.
    return { $thrown: describe(error) };
  } finally {
    senders.splice(senders.lastIndexOf(events), 1);
  }
}

// ---------------------------------------------------------------------------------------------- exported ops

export async function version() {
  return { version: (await loadSdk()).version, node: process.version };
}

/** `new SDK[name](...args)`, or with `call: true` the SDK export called as a function. */
export async function construct({ name, args = [], call = false }, { events }) {
  const loaded = await loadSdk();
  const made = loaded[name];
  if (typeof made !== "function") throw new TypeError(`the Node SDK exports no ${name}`);
  return running(events, () => (call ? made(...decode(args)) : new made(...decode(args))));
}

/** An SDK export as a value (a constant list, say), with whether it is frozen against the caller's edits. */
export async function exported({ name }) {
  const loaded = await loadSdk();
  if (!(name in loaded)) throw new TypeError(`the Node SDK exports no ${name}`);
  const value = loaded[name];
  return { value: encode(value), frozen: Object.isFrozen(value), array: Array.isArray(value) };
}

/**
 * An object whose methods answer synchronously with plain copies of fixed `replies` (no promise), and a log of
 * the method names called: the Node declarations let drivers and callbacks answer either way, while a Python
 * callable always answers through a promise.
 */
export async function plainObject({ replies }) {
  const log = { calls: [] };
  const made = {};
  for (const [key, reply] of Object.entries(replies)) {
    made[key] = () => {
      log.calls.push(key);
      return structuredClone(reply);
    };
  }
  return { object: keep(made), log: keep(log) };
}

/** `target[name](...args)`, awaited. */
export async function call({ target, name, args = [] }, { events }) {
  await loadSdk();
  const object = decode(target);
  if (typeof object?.[name] !== "function") throw new TypeError(`the Node object has no method ${name}`);
  return running(events, () => object[name](...decode(args)));
}

/** Whether `target` has member `name`, and of which JavaScript type. */
export async function member({ target, name }) {
  const object = decode(target);
  return typeof object?.[name];
}

/** `target[name]`. */
export async function get({ target, name }, { events }) {
  const object = decode(target);
  return running(events, () => object[name]);
}

/** A fresh plain object whose methods are Python callables (a driver proxy), kept behind a handle. */
export async function object({ methods }) {
  const made = {};
  for (const [key, value] of Object.entries(methods)) {
    const fn = decode(value);
    // Drivers and callbacks receive (argument, {signal}); Python sees the argument and whether a signal came.
    made[key] = (...args) => fn(...args);
  }
  return keep(made);
}

/**
 * An OpenAI client whose `fetch` is a Python callable answering {status, headers, body, broken}: `broken` ends the
 * body with a connection error after the bytes sent (a stream cut mid-way), as the Python transport does.
 *
 * With `streams` (a `streamLog`), each event-stream body is served one event per read and its life is logged:
 * `opened:<n>` when served, `closed:<n>` once read to its end, cancelled, or released by aborting the request's
 * signal (as a real fetch does: the body errors and the connection goes). A run that stops mid-stream and does none
 * of these leaves it open (RN-STREAM-015), which only this side of the bridge can see.
 */
export async function client({ fetch, options = {}, streams = null }) {
  const loaded = await loadSdk();
  const answer = decode(fetch);
  const log = streams ? decode(streams) : null;
  const fake = async (url, init = {}) => {
    const headers = {};
    new Headers(init.headers ?? {}).forEach((value, key) => (headers[key] = value));
    const body = typeof init.body === "string" ? init.body : init.body == null ? null : String(init.body);
    const served = await answer({ url: String(url), method: init.method ?? "GET", headers, body });
    const text = served.body ?? "";
    const logged = log !== null && String(served.headers?.["content-type"] ?? "").startsWith("text/event-stream");
    const chunks = logged ? text.split("\n\n").filter(Boolean).map((event) => `${event}\n\n`) : text ? [text] : [];
    const encoder = new TextEncoder();
    let index = null;
    let closed = false;
    const close = () => {
      if (index !== null && !closed) log.entries.push(`closed:${index}`);
      closed = true;
    };
    if (logged) {
      index = log.opened;
      log.opened += 1;
      log.entries.push(`opened:${index}`);
    }
    // Pulled, not pushed: erroring a stream drops the chunks still queued, so the bytes go out on the first
    // read and a cut connection fails the read after them.
    let next = 0;
    const stream = new ReadableStream({
      start(controller) {
        // Only the logged bodies honour the signal, so every other check keeps the client it was written against.
        if (!logged || !init.signal) return;
        const release = () => {
          if (closed) return;
          close();
          controller.error(init.signal.reason ?? new Error("driverkit: request aborted"));
        };
        if (init.signal.aborted) release();
        else init.signal.addEventListener("abort", release, { once: true });
      },
      async pull(controller) {
        // The SDK's stream reads its body in the background, as fast as it arrives: paced events keep a remainder
        // unread when a run stops mid-stream, so a run that leaves it to be drained later is seen leaving it open.
        if (logged && next > 0 && next < chunks.length) await new Promise((resolve) => setTimeout(resolve, STREAM_PACE_MS));
        if (closed) return;
        if (next < chunks.length) {
          controller.enqueue(encoder.encode(chunks[next]));
          next += 1;
        } else if (served.broken) controller.error(new TypeError("driverkit: injected connection drop mid-stream"));
        else {
          close();
          controller.close();
        }
      },
      cancel() {
        close();
      },
    });
    return new Response(stream, { status: served.status, headers: served.headers });
  };
  const made = new loaded.OpenAI({ apiKey: "sk-driverkit-fake", baseURL: "https://api.driverkit.invalid/v1", ...decode(options), fetch: fake });
  return keep(made);
}

// The pause before each further event of a logged stream (see `client`).
const STREAM_PACE_MS = 40;

/** A log for `client`'s `streams`: which event-stream bodies were served, and which were closed. */
export async function streamLog() {
  return keep({ opened: 0, entries: [] });
}

/** Python's answer to a callback. */
export async function answer({ cb, ok, value, error }) {
  const pending = waiting.get(cb);
  waiting.delete(cb);
  if (!pending) return false;
  if (ok) pending.resolve(decode(value));
  else pending.reject(rebuild(error));
  return true;
}

/** Forget Node objects Python no longer holds. */
export async function release({ handles: released }) {
  for (const handle of released) objects.delete(handle);
  return objects.size;
}

/**
 * A diagnostic observer whose target Python points per call: the Node toolset's `onDiagnostic` is fixed at
 * construction, while the Python SDK takes an observer per `execute`. `observe` calls the current target (a Python
 * callable, or nothing) and returns what it returns, so a raising Python observer is a rejected promise to the SDK.
 */
export async function diagnosticRelay() {
  let target = null;
  const relay = {
    observe: (event) => (target ? target(event) : undefined),
    point: (next) => {
      target = next ?? null;
      return true;
    },
  };
  return { relay: keep(relay), observe: keep(relay.observe) };
}

/**
 * A fresh AbortController and its signal, each behind a handle: a run or a call takes the signal (the Node SDK's
 * cancellation), and Python aborts the controller when the `cancelled` predicate turns true.
 */
export async function abortController() {
  const controller = new AbortController();
  return { controller: keep(controller), signal: keep(controller.signal) };
}

/**
 * A typed function registration (the Node form of the Python SDK's `from_tool` with a Pydantic model):
 * `runnerFunction(standardResponsesFunction(...))` with the kit's Standard Schema validator of `schema`; `execute`
 * receives the validated arguments. Python adds the registration options (`independent`, ...) to the result.
 */
export async function typedFunction({ name, description, schema, execute }) {
  const loaded = await loadSdk();
  const path = await import("node:path");
  const { pathToFileURL } = await import("node:url");
  const { standardResponsesFunction } = await import(pathToFileURL(path.join(loaded.folder, "helpers/standard-schema.mjs")).href);
  const { stringObjectValidator } = await import("./sdk_loop.mjs");
  const tool = standardResponsesFunction({ name, description, parameters: stringObjectValidator(schema), function: decode(execute) });
  return encode(loaded.runnerFunction(tool));
}
