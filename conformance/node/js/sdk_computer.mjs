// The computer half of the Node SDK broker (sdk.mjs): what the kit's Python callbacks need beyond plain calls when
// they stand in for JavaScript ones (conformance/node/sdk/callbacks.py).
//
// `computerBridge` makes one ordinary broker object; its methods are called with the broker's own `call` op, which
// decodes their arguments (Python callables become async functions) and keeps what they return behind handles:
//   editing(fn)        a function over a Python callback that may edit its arguments: Python answers
//                      {$reply, $edits} (each argument as it left the callback) and the edits land on the very
//                      objects the SDK passed before the SDK sees the reply, as with a JavaScript callback

import { encode } from "./sdk.mjs";

// Reflect.set, not assignment: a read-only field stays as it was (as in sloppy code) rather than failing the callback.
function overwrite(target, edited) {
  if (target === null || typeof target !== "object" || edited === null || typeof edited !== "object") return;
  for (const [key, value] of Object.entries(edited)) {
    const current = target[key];
    if (current !== null && typeof current === "object" && value !== null && typeof value === "object") overwrite(current, value);
    else if (current !== value) Reflect.set(target, key, value);
  }
}

class ComputerBridge {
  editing(python) {
    return async (...args) => {
      const answer = await python(...args);
      if (answer === null || typeof answer !== "object" || !("$edits" in answer)) return answer;
      answer.$edits.forEach((edited, index) => overwrite(args[index], edited));
      return answer.$reply;
    };
  }
}

/** The bridge object, behind a handle. */
export async function computerBridge() {
  return encode(new ComputerBridge());
}
