// A browser-less JavaScript driver for the bridge's own tests and benchmark: one fixed tab, members that return
// at once, refuse, throw, hang, crash the host or report what their signal did.

import { BrowserError } from "openai/helpers/browser";

export function makeDriver(env) {
  const tab = { id: "tab-1", title: "Plain", url: env.start_url, active: true };
  return {
    state() {
      return { tabs: [{ ...tab }] };
    },
    // The benchmark's no-op member.
    get_page_text(_args, _options) {
      return "plain text";
    },
    click(_args, _options) {
      throw new BrowserError("That ref is unknown or no longer on the page; read the page again.");
    },
    key(_args, _options) {
      throw new TypeError("keys must be strings");
    },
    // Reports whether its signal was already aborted, else waits until it aborts (or 5 s pass).
    wait_for(_args, { signal }) {
      if (!signal) return "no signal";
      if (signal.aborted) return "aborted before the call";
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve("never aborted"), 5000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve("aborted during the call");
        });
      });
    },
    // Never settles.
    hover(_args, _options) {
      return new Promise(() => {});
    },
    // Blocks the host's only thread.
    scroll(_args, _options) {
      for (;;);
    },
    // Ends the host, as a crashing driver would.
    navigate(_args, _options) {
      console.error("navigate: about to exit");
      process.exit(3);
    },
    // Leaves a promise rejection nobody handles, then returns normally.
    hover_at(_args, _options) {
      Promise.reject(new Error("stray failure"));
      return undefined;
    },
    // Takes no options parameter: the kit gives it no cancelled keyword.
    find(_args) {
      return null;
    },
    close() {
      return undefined;
    },
  };
}

export const notAFunction = 42;

export function returnsNothing() {
  return null;
}
