// The Decisions half of the Node SDK broker (sdk.mjs): a run of the npm openai's DecisionsToolRunner whose outcome
// crosses to Python whole.
//
// The broker's `call` op turns a thrown error into its class and message, which is all a Responses runner error
// needs besides its call IDs; a DecisionsToolRunnerError is read by its `reason` and its candidate ID receipts, so
// a run goes through a settler kept in the broker: it awaits `runner.run(...)` and returns either the result or the
// error's fields as data. The settler is an ordinary broker object, so its `run` is called with the broker's own
// `call` op, which decodes the runner, the client and the Python callbacks in the options.

import { encode } from "./sdk.mjs";

class DecisionsSettler {
  /** `runner.run(client, params, options)` to its end: {result} or {failure}. */
  async run(runner, client, params, options) {
    try {
      return { result: await runner.run(client, params, options) };
    } catch (error) {
      const isError = error instanceof Error;
      const failure = {
        class: isError ? error.name || error.constructor?.name || "Error" : typeof error,
        message: isError ? String(error.message) : String(error),
      };
      // Only the runner's own error has a reason and receipts; anything else is the kit's problem and is reported
      // as the plain error it is.
      if (isError && typeof error.reason === "string" && Array.isArray(error.attemptedCandidateIds)) {
        failure.reason = error.reason;
        failure.attempted = [...error.attemptedCandidateIds];
        failure.completed = [...(error.completedCandidateIds ?? [])];
      }
      return { failure };
    }
  }
}

/** A settler, kept by the broker behind a handle (see `call` in sdk.mjs). */
export async function decisionsSettler() {
  return encode(new DecisionsSettler());
}

// An application that reuses one observation object and edits what its candidates callback receives (RN-DEC-012):
// in Node, because an observation returned by a Python callback crosses the bridge as a fresh copy, which no later
// edit on the Python side could reach; only a Node application can share its object with the Node runner.
class SharedObservation {
  constructor(parts) {
    this.parts = parts;
    this.observe = () => this.parts;
  }

  /** The candidates callback: edit the shared object and the received one, then answer with `candidates`. */
  candidatesAfterEdits(candidates) {
    return async (received) => {
      for (const observation of [this.parts, received]) {
        if (Array.isArray(observation) && observation[0] && typeof observation[0] === "object") {
          observation[0].text = "changed by the application";
          observation.push({ type: "input_text", text: "appended later" });
        }
      }
      return candidates(received);
    };
  }
}

/** A SharedObservation over `parts`, kept by the broker behind a handle. */
export async function sharedObservation({ parts }) {
  return encode(new SharedObservation(parts));
}
