// JavaScript drivers with exactly one deliberate defect each, for proving the kit catches them through the Node
// bridge. Each factory makes the reference Node driver and changes one member (or the network guard); the wrapper
// keeps every method's (args, options) shape, so the kit still sees the options parameter the reference declares.
// tests/node/test_node_broken_drivers.py says which clause the suite must blame for each.

import { makeDriver as makeReference } from "../../../reference/node/driver.mjs";

async function withDefect(env, defect) {
  const driver = await makeReference(env);
  defect(driver);
  return driver;
}

// Replaces `member` with `broken(args, options, original)`, keeping the two-parameter shape.
function override(driver, member, broken) {
  const original = driver[member].bind(driver);
  driver[member] = (args, options) => broken(args, options, original);
}

// state() reports page URLs with their user:password part (the reference strips it).
export const credentialsInStateUrl = (env) =>
  withDefect(env, (driver) => {
    driver.state = async () => {
      const tabs = [];
      for (const [id, page] of driver.tabs) {
        tabs.push({ id, title: await page.title(), url: page.url(), active: id === driver.active });
      }
      return { tabs };
    };
  });

// read_page reports the first control twice, under the same ref.
export const duplicateRefs = (env) =>
  withDefect(env, (driver) =>
    override(driver, "read_page", async (args, options, original) => {
      const report = await original(args, options);
      if (report.elements.length) report.elements.push({ ...report.elements[0] });
      return report;
    }),
  );

// get_page_text also lists the page's controls (page text must carry no elements).
export const pageTextWithElements = (env) =>
  withDefect(env, (driver) =>
    override(driver, "get_page_text", async (args, options) => {
      const report = await driver.read_page({ tab_id: args.tab_id, filter: "all" }, options);
      return report;
    }),
  );

// The network guard lets the browser follow redirects, so a redirect away reaches the other origin.
export const redirectFollowed = (env) =>
  withDefect(env, (driver) => {
    driver.guard = (route) => {
      const url = route.request().url();
      const origin = (() => {
        try {
          return new URL(url).origin;
        } catch {
          return null;
        }
      })();
      return driver.allowed.has(origin) || /^(data|blob|about):/.test(url) ? route.continue() : route.abort();
    };
  });

// Every member ignores its signal: an already-cancelled call still acts.
export const ignoresCancellation = (env) =>
  withDefect(env, (driver) => {
    for (const member of ["navigate", "click", "type", "key", "scroll", "new_tab", "close_tab", "wait_for"]) {
      override(driver, member, (args, _options, original) => original(args, {}));
    }
  });

// wait_for returns at once, whether or not the text is there.
export const waitForReturnsAtOnce = (env) =>
  withDefect(env, (driver) => override(driver, "wait_for", async () => undefined));

// scroll always scrolls down, whatever the direction.
export const scrollIgnoresDirection = (env) =>
  withDefect(env, (driver) =>
    override(driver, "scroll", (args, options, original) => original({ ...args, direction: "down" }, options)),
  );

// click ends the Node host itself (a driver crash): the check fails with the host's exit, the run goes on.
export const clickEndsTheHost = (env) =>
  withDefect(env, (driver) =>
    override(driver, "click", () => {
      process.exit(3);
    }),
  );

// click never settles: the check fails on the deadline instead of hanging the run.
export const clickHangs = (env) =>
  withDefect(env, (driver) => override(driver, "click", () => new Promise(() => {})));

// zoom returns the whole viewport instead of the requested region.
export const zoomReturnsWholeViewport = (env) =>
  withDefect(env, (driver) =>
    override(driver, "zoom", (args, options) => driver.screenshot({ tab_id: args.tab_id }, options)),
  );

// read_diagnostics ignores the caller's limit and reports everything it kept.
export const diagnosticsIgnoreLimit = (env) =>
  withDefect(env, (driver) =>
    override(driver, "read_diagnostics", (args, options, original) => original({ ...args, limit: 100 }, options)),
  );

// Upload grants can be used again: redeeming one never marks it used.
export const uploadGrantReusable = (env) =>
  withDefect(env, (driver) => {
    const redeem = driver.grants.redeem.bind(driver.grants);
    driver.grants.redeem = (grantId, kind) => {
      const grant = redeem(grantId, kind);
      if (grant) grant.used = false;
      return grant;
    };
  });
