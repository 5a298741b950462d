// The host's computer-driver ops: a JavaScript computer driver certified through the Node SDK's ComputerToolset.
//
// host.mjs merges these ops into its own; they share its driver table (so its `close` op closes computer drivers
// too), its call recording and its cancellation signals. Ops:
//   computer_load    the driver module and its factory export, and the npm openai's helpers/computer
//   computer_open    the factory with this check's desktop (display, screen size, page URL, plus shared())
//   computer_call    one driver method, directly (screenshot(options), the others (action, options))
//   computer_accepts whether the SDK's ComputerToolset constructor takes the driver (null, or its refusal)
//   computer_execute one computer_call through ComputerToolset.execute over a recording proxy of the driver
//   computer_answer  the Python side's answer to a callback the toolset asked for during computer_execute
//
// The SDK's beforeAction and approveSafetyChecks callbacks belong to the Python check: the host sends an
// {"event": "ask"} line and awaits the matching computer_answer. The Python side answers after it has sent any
// abort its `cancelled` predicate calls for, so the toolset sees the cancellation before the callback returns.

export const COMPUTER_METHODS = ["click", "double_click", "drag", "keypress", "move", "screenshot", "scroll", "type", "wait"];

export function computerOps({ register, known, recorded, signalFor, describe, loadDriver, shareResource }) {
  let factory = null;
  let sdk = null;
  const asks = new Map(); // ask number -> {resolve, reject} of a callback awaiting the Python side
  let asked = 0;

  function ask(events, callback, value) {
    asked += 1;
    const key = asked;
    return new Promise((resolve, reject) => {
      asks.set(key, { resolve, reject });
      events({ event: "ask", ask: key, callback, value });
    });
  }

  // A stand-in for the driver that reports every method call the toolset makes (and remembers what the driver
  // threw, so a failure can be told apart from the SDK's own refusals). Missing methods stay missing, so the
  // toolset's constructor judges the driver's real shape.
  function recordingProxy(driver, events, thrown) {
    const proxy = {};
    for (const name of COMPUTER_METHODS) {
      if (typeof driver[name] !== "function") continue;
      const watched = async (invoke, action, options) => {
        try {
          return await recorded(events, name, action, options?.signal !== undefined, invoke);
        } catch (error) {
          thrown.add(error);
          throw error;
        }
      };
      proxy[name] =
        name === "screenshot"
          ? (options) => watched(() => driver.screenshot(options), undefined, options)
          : (action, options) => watched(() => driver[name](action, options), action, options);
    }
    return proxy;
  }

  return {
    async computer_load(request) {
      let file;
      ({ file, factory, sdk } = await loadDriver(request, "computer"));
      if (typeof sdk.ComputerToolset !== "function") {
        throw new Error(`the npm openai ${sdk.version} at ${sdk.file} has no ComputerToolset`);
      }
      return { software: { node: process.version, "openai (npm)": sdk.version, driver: file } };
    },

    async computer_open({ env }) {
      const driver = await factory({ ...env, shared: shareResource });
      if (driver === null || typeof driver !== "object") {
        throw new TypeError(`the factory returned ${driver === null ? "null" : typeof driver}, not a computer driver`);
      }
      const methods = {};
      for (const name of COMPUTER_METHODS) {
        // A method takes the options object ({signal}) when it declares that parameter.
        if (typeof driver[name] === "function") methods[name] = driver[name].length >= (name === "screenshot" ? 1 : 2);
      }
      return { handle: register(driver), methods };
    },

    async computer_call({ id, handle, member, args, cancelled }, events) {
      const driver = known(handle);
      const signal = signalFor(id, cancelled);
      const options = { signal };
      if (member === "screenshot") {
        return recorded(events, member, undefined, signal !== undefined, () => driver.screenshot(options));
      }
      return recorded(events, member, args, signal !== undefined, () => driver[member](args, options));
    },

    async computer_accepts({ handle }) {
      try {
        new sdk.ComputerToolset(known(handle)).close();
        return null;
      } catch (error) {
        return describe(error);
      }
    },

    async computer_execute({ id, handle, call, cancelled, callbacks = [] }, events) {
      const driver = known(handle);
      const thrown = new Set();
      let toolset;
      try {
        toolset = new sdk.ComputerToolset(recordingProxy(driver, events, thrown));
      } catch (error) {
        return { refused: describe(error) };
      }
      const signal = signalFor(id, cancelled);
      const options = signal === undefined ? {} : { signal };
      if (callbacks.includes("before_action")) {
        options.beforeAction = (action) => ask(events, "before_action", action);
      }
      if (callbacks.includes("approve_safety_checks")) {
        options.approveSafetyChecks = (approvalCall) => ask(events, "approve_safety_checks", approvalCall);
      }
      try {
        return { output: await toolset.execute(call, options) };
      } catch (error) {
        // What the driver threw passes through the toolset as is; anything else is the SDK stopping the call.
        return { error: describe(error), from_driver: thrown.has(error) };
      } finally {
        toolset.close();
      }
    },

    async computer_answer({ ask: key, value, error }) {
      const pending = asks.get(key);
      asks.delete(key);
      if (!pending) throw new Error(`no callback ${key} is waiting for an answer`);
      if (error) pending.reject(new Error(String(error)));
      else pending.resolve(value);
      return null;
    },
  };
}
