// JavaScript computer drivers with exactly one defect each: the reference Node computer driver with one method
// changed. tests/node/test_node_broken_computer_drivers.py certifies each and expects its clause to fail.

import { CONFORMANCE_WAIT_MS, XvfbComputerDriver, keyKeysym } from "../../../reference/node/computer.mjs";

async function open(env) {
  return XvfbComputerDriver.open(env.display, { waitMs: CONFORMANCE_WAIT_MS });
}

// wait returns at once instead of pausing (CO-WAIT-001).
export async function waitReturnsAtOnce(env) {
  const driver = await open(env);
  driver.wait = async (_action, _options) => {};
  return driver;
}

// keypress silently skips key names it does not know instead of refusing the action (CO-UNSUP-001).
export async function unknownKeysSkipped(env) {
  const driver = await open(env);
  const keypress = driver.keypress.bind(driver);
  driver.keypress = async (action, options) => {
    const known = action.keys.filter((name) => {
      try {
        return keyKeysym(name) !== undefined;
      } catch {
        return false;
      }
    });
    if (known.length) await keypress({ ...action, keys: known }, options);
  };
  return driver;
}

// type declares the signal but never looks at it: typing runs to the end however early it was cancelled
// (CO-CANCEL-001 and CO-CANCEL-002).
export async function typeIgnoresCancellation(env) {
  const driver = await open(env);
  const type = driver.type.bind(driver);
  driver.type = (action, _options) => type(action, { signal: undefined });
  return driver;
}

// A driver without drag: the shape clause fails, and so does the Node SDK's ComputerToolset constructor
// (CO-SHAPE-001 and CO-SHAPE-002).
export async function withoutDrag(env) {
  const driver = await open(env);
  driver.drag = undefined;
  return driver;
}

// Clicks land 12 pixels right of the point asked for (CO-CLICK-001).
export async function clicksOffTarget(env) {
  const driver = await open(env);
  const click = driver.click.bind(driver);
  driver.click = (action, options) => click({ ...action, x: action.x + 12 }, options);
  return driver;
}
