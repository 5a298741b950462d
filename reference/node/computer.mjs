// The reference Node computer driver: native computer actions on an X display (Xvfb) through XTEST.
//
// It is the JavaScript counterpart of reference/computer (the Python reference), with the same behaviour: every
// method takes the SDK's computer action (snake_case wire shape) and either performs the whole action or throws;
// points are screenshot pixels, and a point outside the screenshot is refused rather than clamped; key names are
// read loosely ("CTRL", "ArrowLeft", "pagedown") and an unknown one is refused, never skipped; characters the
// keymap lacks are typed by binding their symbol to a spare keycode first; whatever was pressed is released
// again when an action stops early. Every method honours the SDK's AbortSignal: checked before any input, and
// between keys, drag points, wheel notches and during a wait.
//
// It talks to the X server itself (./x11.mjs), with no child processes: certify it with
//   pytest --computer-driver=node:reference/node/computer.mjs#makeComputerDriver
// Screenshots are the whole screen at its own size (no scaling or region, unlike the Python driver's options).

import { setTimeout as sleep } from "node:timers/promises";

import { BUTTON_PRESS, BUTTON_RELEASE, KEY_PRESS, KEY_RELEASE, MOTION_NOTIFY, X11Connection } from "./x11.mjs";

// X core pointer buttons for the computer tool's button names (8 and 9 are the side buttons browsers map to
// back and forward); wheel buttons 4 up, 5 down, 6 left, 7 right.
const BUTTONS = { left: 1, wheel: 2, right: 3, back: 8, forward: 9 };
const WHEEL = { up: 4, down: 5, left: 6, right: 7 };
// Chromium and Firefox on X scroll about this many CSS pixels per wheel notch.
const PIXELS_PER_NOTCH = 120;
const DRAG_STEP_MS = 20;
// Chromium reports a button event it handles late at the pointer position current when it handles it, and under
// load can handle a press before the motion ahead of it: the pointer stays put this long after a release before
// it moves elsewhere, and this long after arriving before anything is pressed there.
const POINTER_SETTLE_MS = 50;
// Browsers do not count two presses with the same timestamp as a double click.
const REPEAT_CLICK_GAP_MS = 20;
// A pause per typed key: keeps the AbortSignal live between keys (the event loop runs) and the page in step.
const KEY_GAP_MS = 2;
// Clients refetch a remapped keymap asynchronously: 50 ms has not lost a character on a loaded two-core machine.
const REMAP_SETTLE_MS = 50;
// Before a binding is undone, clients get this long to translate keys typed under it.
const UNBIND_GRACE_MS = 200;
const DEFAULT_WAIT_MS = 1000;
const POLL_MS = 20;

const keysym = (name) => NAMED_KEYSYMS_BY_X_NAME[name];
const NAMED_KEYSYMS_BY_X_NAME = {
  Control_L: 0xffe3, Control_R: 0xffe4, Shift_L: 0xffe1, Shift_R: 0xffe2, Alt_L: 0xffe9, Alt_R: 0xffea,
  Super_L: 0xffeb, Super_R: 0xffec, Return: 0xff0d, Tab: 0xff09, space: 0x20, BackSpace: 0xff08, Delete: 0xffff,
  Insert: 0xff63, Escape: 0xff1b, Home: 0xff50, End: 0xff57, Prior: 0xff55, Next: 0xff56, Up: 0xff52,
  Down: 0xff54, Left: 0xff51, Right: 0xff53, Caps_Lock: 0xffe5, Num_Lock: 0xff7f, Scroll_Lock: 0xff14,
  Print: 0xff61, Pause: 0xff13, Menu: 0xff67,
};
for (let number = 1; number <= 24; number += 1) NAMED_KEYSYMS_BY_X_NAME[`F${number}`] = 0xffbe + number - 1;

// The computer tool's key names (normalised: lower case, no "_", "-" or spaces) and the X keysyms they stand for.
const KEY_NAMES = {
  ctrl: "Control_L", control: "Control_L", controlleft: "Control_L", controlright: "Control_R",
  shift: "Shift_L", shiftleft: "Shift_L", shiftright: "Shift_R",
  alt: "Alt_L", altleft: "Alt_L", altright: "Alt_R", option: "Alt_L",
  cmd: "Super_L", command: "Super_L", meta: "Super_L", super: "Super_L", win: "Super_L", windows: "Super_L", os: "Super_L",
  enter: "Return", return: "Return", tab: "Tab", space: "space", backspace: "BackSpace", delete: "Delete",
  del: "Delete", insert: "Insert", esc: "Escape", escape: "Escape", home: "Home", end: "End",
  pageup: "Prior", pgup: "Prior", pagedown: "Next", pgdn: "Next",
  up: "Up", down: "Down", left: "Left", right: "Right",
  arrowup: "Up", arrowdown: "Down", arrowleft: "Left", arrowright: "Right",
  capslock: "Caps_Lock", numlock: "Num_Lock", scrolllock: "Scroll_Lock", printscreen: "Print", print: "Print",
  pause: "Pause", menu: "Menu", contextmenu: "Menu",
};
for (let number = 1; number <= 24; number += 1) KEY_NAMES[`f${number}`] = `F${number}`;
const MODIFIERS = new Set(["Control_L", "Control_R", "Shift_L", "Shift_R", "Alt_L", "Alt_R", "Super_L", "Super_R"].map(keysym));

export class UnknownKeyError extends RangeError {
  name = "UnknownKeyError";
}

export class OffScreenError extends RangeError {
  name = "OffScreenError";
}

// The keysym that produces one character: Latin-1 keysyms equal the code point, others use the Unicode range.
export function charKeysym(char) {
  const code = char.codePointAt(0);
  if (char === "\n") return keysym("Return");
  if (char === "\t") return keysym("Tab");
  if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff)) return code;
  if (code < 0x20 || code === 0x7f) throw new RangeError(`cannot type control character U+${code.toString(16).padStart(4, "0")}`);
  return 0x01000000 + code;
}

// The keysym for one entry of a keypress action's keys list.
export function keyKeysym(name) {
  if (typeof name !== "string" || !name) throw new UnknownKeyError(`unknown key name ${JSON.stringify(name)}`);
  if ([...name].length === 1) {
    // In a combination a letter names the key, not the character: "A" in ctrl+A is the a key.
    return charKeysym(/^[A-Za-z]$/.test(name) ? name.toLowerCase() : name);
  }
  const normalised = name.toLowerCase().replace(/[_\- ]/g, "");
  const xName = KEY_NAMES[normalised];
  if (xName === undefined) {
    throw new UnknownKeyError(`unknown key name ${JSON.stringify(name)}: use a key name such as 'ctrl', 'enter', 'f5' or one character`);
  }
  return keysym(xName);
}

function field(action, name) {
  if (action === null || typeof action !== "object" || !(name in action)) {
    throw new TypeError(`${action?.type ?? "the"} action has no ${JSON.stringify(name)} field`);
  }
  return action[name];
}

function checkSignal(signal) {
  if (signal?.aborted) throw signal.reason ?? new DOMException("the computer action was cancelled", "AbortError");
}

export class XvfbComputerDriver {
  static async open(display, { waitMs = DEFAULT_WAIT_MS } = {}) {
    const connection = await X11Connection.open(display);
    try {
      await connection.enableXtest();
      const mapping = await connection.keyboardMapping();
      return new XvfbComputerDriver(connection, mapping, waitMs);
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  constructor(connection, mapping, waitMs) {
    this.x = connection;
    this.waitMs = waitMs;
    this.strokes = new Map(); // keysym -> {keycode, shifted}
    this.spare = [];
    mapping.forEach((keysyms, offset) => {
      const keycode = connection.minKeycode + offset;
      if (keysyms.every((value) => !value)) {
        this.spare.push(keycode);
        return;
      }
      // Only the first two levels: the others need Mode_switch or ISO_Level3 state.
      keysyms.slice(0, 2).forEach((value, level) => {
        if (value && !this.strokes.has(value)) this.strokes.set(value, { keycode, shifted: level === 1 });
      });
    });
    if (this.spare.length === 0) throw new Error("the X keymap has no unused keycode, so characters outside it cannot be typed");
    this.base = new Set(this.strokes.keys());
    this.bound = new Map(); // keysym -> spare keycode, oldest binding first
    this.pressedKeys = [];
    this.pressedButtons = [];
    this.lastRelease = { point: null, at: 0 };
    this.pointer = null;
  }

  get screenSize() {
    return [this.x.width, this.x.height];
  }

  // -- helpers -----------------------------------------------------------------------------------------------

  point(action) {
    return this.toScreen(field(action, "x"), field(action, "y"));
  }

  toScreen(x, y) {
    if (!Number.isInteger(x) || !Number.isInteger(y)) throw new TypeError(`coordinates must be integers, got (${x}, ${y})`);
    if (x < 0 || y < 0 || x >= this.x.width || y >= this.x.height) {
      throw new OffScreenError(`point (${x}, ${y}) is outside the ${this.x.width}x${this.x.height} screenshot`);
    }
    return [x, y];
  }

  async moveTo([x, y]) {
    const { point, at } = this.lastRelease;
    if (point && (point[0] !== x || point[1] !== y)) {
      const remaining = at + POINTER_SETTLE_MS - performance.now();
      if (remaining > 0) await sleep(remaining);
    }
    this.x.fakeInput(MOTION_NOTIFY, 0, x, y);
    await this.x.sync();
    // Under load Chromium can handle a press before the motion just ahead of it: let the arrival settle first.
    if (!this.pointer || this.pointer[0] !== x || this.pointer[1] !== y) {
      this.pointer = [x, y];
      await sleep(POINTER_SETTLE_MS);
    }
  }

  released(point) {
    this.lastRelease = { point, at: performance.now() };
  }

  async button(button, down) {
    this.x.fakeInput(down ? BUTTON_PRESS : BUTTON_RELEASE, button);
    if (down) this.pressedButtons.push(button);
    else this.pressedButtons = this.pressedButtons.filter((pressed) => pressed !== button);
    await this.x.sync();
  }

  async key(value, down) {
    const stroke = this.strokes.get(value);
    if (!stroke) throw new RangeError(`keysym 0x${value.toString(16)} has no key on this keyboard`);
    this.x.fakeInput(down ? KEY_PRESS : KEY_RELEASE, stroke.keycode);
    if (down) this.pressedKeys.push(stroke.keycode);
    else this.pressedKeys = this.pressedKeys.filter((pressed) => pressed !== stroke.keycode);
    await this.x.sync();
  }

  async releaseAll() {
    for (const button of this.pressedButtons.reverse()) this.x.fakeInput(BUTTON_RELEASE, button);
    for (const keycode of this.pressedKeys.reverse()) this.x.fakeInput(KEY_RELEASE, keycode);
    this.pressedButtons = [];
    this.pressedKeys = [];
    await this.x.sync();
  }

  // Run one action with `keys` held around it; release whatever it pressed, however it ends.
  async held(keys, signal, body) {
    const values = (keys ?? []).map(keyKeysym);
    const missing = (keys ?? []).filter((_, index) => !this.strokes.has(values[index]));
    if (missing.length) throw new RangeError(`keys ${JSON.stringify(missing)} cannot be held: no key on this keyboard produces them`);
    checkSignal(signal);
    try {
      for (const value of values) {
        checkSignal(signal);
        await this.key(value, true);
      }
      await body();
    } finally {
      await this.releaseAll();
    }
  }

  // Make every keysym typeable, binding spare keycodes to those the keymap lacks (bindings stay until needed).
  async bind(values) {
    const missing = [...new Set(values)].filter((value) => !this.strokes.has(value));
    if (!missing.length) return;
    const wanted = new Set(values);
    const taken = new Set(this.bound.values());
    const free = this.spare.filter((keycode) => !taken.has(keycode));
    const evictable = [...this.bound.keys()].filter((value) => !wanted.has(value));
    if (missing.length > free.length + evictable.length) {
      throw new RangeError(`cannot bind ${missing.length} symbols with ${this.spare.length} spare keys`);
    }
    // Clients translate keys against the keymap they hold when they get to them: rebinding too early would turn
    // keys typed earlier into the new symbols.
    if (missing.length > free.length) await sleep(UNBIND_GRACE_MS);
    for (const value of missing) {
      let keycode = free.shift();
      if (keycode === undefined) {
        const evicted = evictable.shift();
        keycode = this.bound.get(evicted);
        this.bound.delete(evicted);
        this.strokes.delete(evicted);
      }
      this.x.changeKeyboardMapping(keycode, [value, value]);
      this.bound.set(value, keycode);
      this.strokes.set(value, { keycode, shifted: false });
    }
    await this.x.sync();
    await sleep(REMAP_SETTLE_MS);
  }

  async typeKeysyms(values, signal) {
    const shift = this.strokes.get(keysym("Shift_L"));
    let position = 0;
    while (position < values.length) {
      // The next run whose symbols outside the base keymap all fit in the spare keycodes at once.
      let end = position;
      const extra = new Set();
      while (end < values.length) {
        const value = values[end];
        if (!this.base.has(value)) {
          if (!extra.has(value) && extra.size === this.spare.length) break;
          extra.add(value);
        }
        end += 1;
      }
      const run = values.slice(position, end);
      await this.bind(run);
      for (const value of run) {
        checkSignal(signal);
        const stroke = this.strokes.get(value);
        if (stroke.shifted) this.x.fakeInput(KEY_PRESS, shift.keycode);
        this.x.fakeInput(KEY_PRESS, stroke.keycode);
        this.x.fakeInput(KEY_RELEASE, stroke.keycode);
        if (stroke.shifted) this.x.fakeInput(KEY_RELEASE, shift.keycode);
        await this.x.sync();
        await sleep(KEY_GAP_MS);
      }
      position = end;
    }
  }

  // -- the nine driver methods -------------------------------------------------------------------------------

  async click(action, { signal }) {
    const name = field(action, "button");
    if (!(name in BUTTONS)) throw new RangeError(`unsupported mouse button ${JSON.stringify(name)}; expected one of ${Object.keys(BUTTONS)}`);
    const point = this.point(action);
    await this.held(action.keys, signal, async () => {
      await this.moveTo(point);
      await this.button(BUTTONS[name], true);
      await this.button(BUTTONS[name], false);
      this.released(point);
    });
  }

  async double_click(action, { signal }) {
    const point = this.point(action);
    await this.held(action.keys, signal, async () => {
      await this.moveTo(point);
      await this.button(BUTTONS.left, true);
      await this.button(BUTTONS.left, false);
      await sleep(REPEAT_CLICK_GAP_MS);
      await this.button(BUTTONS.left, true);
      await this.button(BUTTONS.left, false);
      this.released(point);
    });
  }

  async drag(action, { signal }) {
    const path = field(action, "path");
    if (!Array.isArray(path) || path.length < 2) throw new RangeError(`a drag needs at least two path points, got ${path?.length}`);
    const points = path.map((point) => this.toScreen(field(point, "x"), field(point, "y")));
    await this.held(action.keys, signal, async () => {
      await this.moveTo(points[0]);
      await this.button(BUTTONS.left, true);
      for (const point of points.slice(1)) {
        checkSignal(signal);
        // Browsers on X merge queued motion events: a short pause per point keeps every point.
        await sleep(DRAG_STEP_MS);
        this.x.fakeInput(MOTION_NOTIFY, 0, point[0], point[1]);
        await this.x.sync();
      }
      await this.button(BUTTONS.left, false);
      this.released(points.at(-1));
    });
  }

  async keypress(action, { signal }) {
    const keys = field(action, "keys");
    if (!Array.isArray(keys) || keys.length === 0) throw new RangeError("a keypress needs at least one key");
    const values = keys.map(keyKeysym);
    checkSignal(signal);
    try {
      if (values.length === 1 && !MODIFIERS.has(values[0]) && !this.strokes.has(values[0])) {
        // A lone symbol the keyboard lacks (keypress ["é"]): type it through a remapped key.
        await this.typeKeysyms(values, signal);
        return;
      }
      const missing = keys.filter((_, index) => !this.strokes.has(values[index]));
      if (missing.length) throw new RangeError(`keys ${JSON.stringify(missing)} cannot be combined: no key on this keyboard produces them`);
      // A combination: press in order, release in reverse (ctrl down, c down, c up, ctrl up).
      for (const value of values) await this.key(value, true);
      for (const value of [...values].reverse()) await this.key(value, false);
    } finally {
      await this.releaseAll();
    }
  }

  async move(action, { signal }) {
    const point = this.point(action);
    await this.held(action.keys, signal, () => this.moveTo(point));
  }

  async scroll(action, { signal }) {
    const point = this.point(action);
    const scrollX = field(action, "scroll_x");
    const scrollY = field(action, "scroll_y");
    for (const [name, value] of [["scroll_x", scrollX], ["scroll_y", scrollY]]) {
      if (!Number.isInteger(value)) throw new TypeError(`${name} must be an integer, got ${JSON.stringify(value)}`);
    }
    const notches = (pixels) => (pixels === 0 ? 0 : Math.max(1, Math.round(Math.abs(pixels) / PIXELS_PER_NOTCH)));
    const turns = [
      [scrollY > 0 ? WHEEL.down : WHEEL.up, notches(scrollY)],
      [scrollX > 0 ? WHEEL.right : WHEEL.left, notches(scrollX)],
    ];
    await this.held(action.keys, signal, async () => {
      await this.moveTo(point);
      for (const [button, count] of turns) {
        for (let turn = 0; turn < count; turn += 1) {
          checkSignal(signal);
          await this.button(button, true);
          await this.button(button, false);
        }
      }
    });
  }

  async type(action, { signal }) {
    const text = field(action, "text");
    if (typeof text !== "string") throw new TypeError(`type text must be a string, got ${typeof text}`);
    const values = [...text].map(charKeysym);
    checkSignal(signal);
    try {
      await this.typeKeysyms(values, signal);
    } finally {
      await this.releaseAll();
    }
  }

  async wait(_action, { signal }) {
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      checkSignal(signal);
      const remaining = deadline - performance.now();
      if (remaining <= 0) return;
      await sleep(Math.min(remaining, POLL_MS));
    }
  }

  async screenshot({ signal }) {
    checkSignal(signal);
    const png = await this.x.screenshotPng();
    return { type: "computer_screenshot", image_url: `data:image/png;base64,${png.toString("base64")}` };
  }

  async close() {
    try {
      await this.releaseAll();
      if (this.bound.size) {
        // Give clients time to translate the last keys typed under these bindings before undoing them.
        await sleep(UNBIND_GRACE_MS);
        for (const keycode of this.bound.values()) this.x.changeKeyboardMapping(keycode, [0, 0]);
        this.bound.clear();
        await this.x.sync();
      }
    } finally {
      this.x.close();
    }
  }
}

// Waits in the suite only need to be measurable, not the interactive default of one second.
export const CONFORMANCE_WAIT_MS = 250;

// The kit's factory: the desktop's display from the environment, one X connection per check.
export function makeComputerDriver(env) {
  return XvfbComputerDriver.open(env.display, { waitMs: CONFORMANCE_WAIT_MS });
}
