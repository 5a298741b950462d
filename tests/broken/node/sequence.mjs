// A JavaScript driver whose one defect shows only over a sequence of members, for proving that exploration drives
// a JavaScript driver through the Node bridge as it drives a Python one. The wrapper keeps every method's
// (args, options) shape, like broken.mjs. tests/conformance/contracts/browser/test_sequence_drivers.py says which
// clause exploration must blame.

import { makeDriver as makeReference } from "../../../reference/node/driver.mjs";

// Once switch_tab has been used, navigate loads its page in the active tab whichever tab it names (before any
// switch, a navigation naming a background tab loads there, as it should).
export const namedNavigationAfterASwitch = async (env) => {
  const driver = await makeReference(env);
  const switchTab = driver.switch_tab.bind(driver);
  const navigate = driver.navigate.bind(driver);
  let switched = false;
  driver.switch_tab = async (args, options) => {
    const result = await switchTab(args, options);
    switched = true;
    return result;
  };
  driver.navigate = (args, options) =>
    navigate(switched && driver.tabs.has(args.tab_id) ? { ...args, tab_id: null } : args, options);
  return driver;
};
