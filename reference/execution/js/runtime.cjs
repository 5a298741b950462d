"use strict";
// One session's JavaScript runtime: a Node process that keeps Playwright's browser, context and page, and
// whatever the code assigns to globalThis, alive between calls.
//
// Started by the service inside the session's sandbox as
//   node runtime.cjs --max-text-bytes N --max-images N --max-image-bytes N
// with the protocol on fd 3 (requests) and fd 4 (replies), and fds 0-2 on /dev/null, so nothing the code or
// Chromium prints can corrupt the protocol. Each frame is a 4-byte big-endian length and a UTF-8 JSON object,
// the same framing as the Python runtime (runtime.py).
//
// The code runs as the body of an async function, so top-level `await` works; `console.log(value)` returns text
// and `display(base64Image)` returns a PNG or JPEG image (base64 text, a data: URL or a Buffer).

const fs = require("node:fs");
const util = require("node:util");
const vm = require("node:vm");
const { createRequire } = require("node:module");

const CODE_NAME = "<exec_js>";
const SURVIVED = "(The session's runtime is still running: globalThis, the browser and the page are kept.)";
const VIEWPORT = { width: 1440, height: 900 };
const CHROMIUM = process.env.RDK_CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox", // the session's bubblewrap sandbox is the boundary; Chromium's own needs privileges it lacks
  "--disable-gpu",
  "--disable-quic",
  "--disable-dev-shm-usage",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
];
const DATA_URL = /data:image\/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]{64,}/g;
const LONG_BASE64 = /[A-Za-z0-9+/=]{2000,}/g;

function options(argv) {
  const found = {};
  for (const arg of argv) {
    const match = /^--([a-z-]+)=(\d+)$/.exec(arg);
    if (match) found[match[1]] = Number(match[2]);
  }
  for (const name of ["max-text-bytes", "max-images", "max-image-bytes"]) {
    if (!Number.isSafeInteger(found[name])) throw new Error(`missing --${name}=N`);
  }
  return found;
}

function scrub(text) {
  // Keep image payloads out of text: images go back through display(), never as base64 prose.
  text = text.replace(DATA_URL, "[image data removed; use display(base64Image) to return an image]");
  return text.replace(LONG_BASE64, (run) =>
    /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) ? "[long base64 text removed]" : run,
  );
}

class Outputs {
  constructor(limits) {
    this.items = [];
    this.textLeft = limits["max-text-bytes"];
    this.imagesLeft = limits["max-images"];
    this.maxImageBytes = limits["max-image-bytes"];
    this.truncated = 0;
  }

  text(text) {
    let encoded = Buffer.from(scrub(text), "utf8");
    if (encoded.length > this.textLeft) {
      this.truncated += encoded.length - this.textLeft;
      encoded = encoded.subarray(0, this.textLeft);
      this.textLeft = 0;
    } else {
      this.textLeft -= encoded.length;
    }
    const kept = new util.TextDecoder("utf-8", { fatal: false }).decode(encoded).replace(/\uFFFD$/, "");
    if (kept) this.items.push({ type: "input_text", text: kept });
  }

  image(value) {
    const bytes = imageBytes(value);
    if (this.imagesLeft <= 0) {
      this.note("display() ignored: this call already returned the maximum number of images.");
      return;
    }
    if (bytes.length > this.maxImageBytes) {
      this.note(
        `display() ignored: the image is ${bytes.length} bytes, over the ${this.maxImageBytes}-byte limit; ` +
          "take a smaller screenshot (a clip or an element) first.",
      );
      return;
    }
    this.imagesLeft -= 1;
    const url = `data:${bytes.mime};base64,${bytes.data.toString("base64")}`;
    this.items.push({ type: "input_image", image_url: url, detail: "original" });
  }

  note(text) {
    // The runtime's own notes are not charged to the caller's text budget.
    this.items.push({ type: "input_text", text });
  }

  finish() {
    if (this.truncated) this.note(`[text output truncated: ${this.truncated} more bytes were not returned]`);
    if (!this.items.length) this.note("Finished with no output.");
    return this.items;
  }
}

function imageBytes(value) {
  let data;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    data = Buffer.from(value);
  } else if (typeof value === "string") {
    const text = value.replace(/^data:image\/[A-Za-z0-9.+-]+;base64,/, "").replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new TypeError("display() takes base64 image data");
    data = Buffer.from(text, "base64");
  } else {
    throw new TypeError(`display() takes a base64 image string, not ${value === null ? "null" : typeof value}`);
  }
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { data, mime: "image/png", length: data.length };
  }
  if (data.length > 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) {
    return { data, mime: "image/jpeg", length: data.length };
  }
  throw new TypeError("display() takes a PNG or JPEG image (for example page.screenshot() as base64)");
}

function describe(error, lines = Infinity) {
  if (!(error instanceof Error)) return `Uncaught ${util.inspect(error)}`;
  const head = `${error.name}: ${error.message}`;
  // Only the caller's own frames (not the wrapper's last line): Playwright's internals mean nothing to the model.
  const frames = String(error.stack || "")
    .split("\n")
    .filter((line) => line.includes(CODE_NAME) && Number(/:(\d+):\d+\)?$/.exec(line)?.[1]) <= lines)
    .map((line) => line.trim());
  return [head, ...frames.map((line) => `    ${line}`)].join("\n");
}

function compile(code) {
  // The code becomes the body of an async function (top-level await); line 1 of the code is line 1 of the
  // wrapper, so syntax errors and stack traces point at the caller's own lines.
  try {
    return new vm.Script(`(async () => { ${code}\n})()`, { filename: CODE_NAME });
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const [where, source, caret] = String(error.stack || "").split("\n");
    const line = where && where.startsWith(CODE_NAME) ? `${where}\n${source}\n${caret}\n` : "";
    const end = Number(where?.split(":").pop()) > code.split("\n").length ? " (at the end of the code)" : "";
    return `${line}SyntaxError: ${error.message}${end}`;
  }
}

function frameReader(fd) {
  let pending = Buffer.alloc(0);
  const waiting = [];
  const frames = [];
  let ended = false;
  const stream = fs.createReadStream(null, { fd, autoClose: false });
  stream.on("data", (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
      const size = pending.readUInt32BE(0);
      frames.push(JSON.parse(pending.subarray(4, 4 + size).toString("utf8")));
      pending = pending.subarray(4 + size);
    }
    while (frames.length && waiting.length) waiting.shift()(frames.shift());
  });
  stream.on("end", () => {
    ended = true;
    while (waiting.length) waiting.shift()(null);
  });
  return () =>
    new Promise((resolve) => {
      if (frames.length) resolve(frames.shift());
      else if (ended) resolve(null);
      else waiting.push(resolve);
    });
}

function writeFrame(fd, value) {
  const payload = Buffer.from(JSON.stringify(value), "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(payload.length, 0);
  const frame = Buffer.concat([header, payload]);
  let written = 0;
  while (written < frame.length) written += fs.writeSync(fd, frame, written);
}

async function launch() {
  const { chromium } = require("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, chromiumSandbox: false });
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  return { browser, context, page };
}

async function main() {
  const limits = options(process.argv.slice(2));
  try {
    process.chdir(process.env.HOME || "."); // the session's scratch folder, its only writable place
  } catch {
    // stay where the sandbox started us
  }
  const requests = frameReader(3);
  const current = { outputs: new Outputs(limits), lines: Infinity };
  const late = [];

  const log = (...values) => {
    const text = values.map((value) => (typeof value === "string" ? value : util.inspect(value))).join(" ");
    current.outputs.text(text + "\n");
  };
  // Everything the code might print goes to the call's text output, never to the protocol descriptors.
  for (const name of ["log", "info", "warn", "error", "debug", "trace", "dir"]) console[name] = log;
  for (const stream of [process.stdout, process.stderr]) {
    stream.write = (chunk) => {
      current.outputs.text(String(chunk));
      return true;
    };
  }
  // A promise the code rejected without awaiting must not end the runtime: it is reported with the call.
  process.on("unhandledRejection", (reason) =>
    late.push(`Unhandled promise rejection: ${describe(reason, current.lines)}`),
  );
  process.on("uncaughtException", (error) => late.push(`Uncaught exception: ${describe(error, current.lines)}`));

  let note = null;
  try {
    Object.assign(globalThis, await launch());
  } catch (error) {
    note = `The browser could not be started in this runtime (${String(error.message).split("\n")[0]}).`;
  }
  globalThis.display = (image) => current.outputs.image(image);
  globalThis.require = createRequire(__filename);
  writeFrame(4, { ready: true, note });

  for (let request = await requests(); request !== null; request = await requests()) {
    const outputs = (current.outputs = new Outputs(limits));
    const code = String(request.code ?? "");
    current.lines = code.split("\n").length;
    if (note && /\b(browser|context|page)\b/.test(code)) outputs.note(note);
    const script = compile(code);
    let failed = typeof script === "string";
    if (failed) {
      outputs.note(script);
    } else {
      try {
        await script.runInThisContext();
      } catch (error) {
        outputs.note(describe(error, current.lines));
        failed = true;
      }
    }
    // Rejections the code left unhandled surface after a turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    failed ||= late.length > 0;
    while (late.length) outputs.note(late.shift());
    if (failed) outputs.note(SURVIVED);
    // The call number goes back with the reply, so the service can tell this reply from one the code forged.
    writeFrame(4, { call: request.call ?? null, output: outputs.finish() });
  }
  process.exit(0);
}

main().catch((error) => {
  try {
    writeFrame(4, { ready: false, note: describe(error) });
  } finally {
    process.exit(1);
  }
});
