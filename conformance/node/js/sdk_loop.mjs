// Typed function registrations for the Node SDK's runner (`runnerFunction`), used by sdk.mjs's `typedFunction`, and
// a custom input container (`customInput`) for the runner's params.
//
// The Python SDK's typed registration (`from_tool` with a Pydantic model) validates a call's arguments against the
// model before the executor sees them. The Node SDK's counterpart is `runnerFunction` over a parseable Responses
// tool; of the helpers that make one, `standardResponsesFunction` takes any Standard Schema v1 validator, so the
// kit needs no validation library (zod is not a dependency of npm openai): it builds the validator here from the
// same JSON schema the plain registrations declare. Plain ESM, no dependencies besides the broker's encoder.

import { encode } from "./sdk.mjs";

/**
 * A Standard Schema v1 validator for a JSON schema describing an object of required string properties and
 * nothing else (the kit's `{"reference": string}` arguments). Any other schema shape is refused, by name, so a
 * scenario cannot register a typed function whose arguments this validator would check only in part.
 */
export function stringObjectValidator(schema) {
  const properties = schema?.properties;
  const names = properties && typeof properties === "object" ? Object.keys(properties) : [];
  const required = Array.isArray(schema?.required) ? schema.required : [];
  const supported =
    schema?.type === "object" &&
    schema.additionalProperties === false &&
    names.every((name) => properties[name]?.type === "string") &&
    names.length === required.length &&
    names.every((name) => required.includes(name));
  if (!supported) {
    throw new TypeError(
      `the kit's typed registration validates only objects of required string properties, not ${JSON.stringify(schema)}`,
    );
  }
  const validate = (value) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { issues: [{ message: "expected an object" }] };
    const issues = [];
    for (const name of names) {
      if (typeof value[name] !== "string") issues.push({ message: "expected a string", path: [name] });
    }
    for (const key of Object.keys(value)) {
      if (!names.includes(key)) issues.push({ message: "unexpected property", path: [key] });
    }
    return issues.length ? { issues } : { value: Object.fromEntries(names.map((name) => [name, value[name]])) };
  };
  return {
    "~standard": {
      version: 1,
      vendor: "driverkit",
      validate,
      jsonSchema: { input: () => structuredClone(schema) },
    },
  };
}

// A list-like input that is no Array (RN-BUDGET-021, the Node form of a custom Python container): iterable, with a
// length, indexed items and a toJSON, each read recorded in its log. Budget mode must refuse it before reading it;
// an SDK that iterated it, measured it or serialized it would leave a read behind.
class ReadLog {
  constructor() {
    this.reads = [];
  }
}

class CustomInput {
  #items;
  #log;

  constructor(items, log) {
    this.#items = items;
    this.#log = log;
    items.forEach((_, index) => {
      Object.defineProperty(this, String(index), {
        enumerable: true,
        get: () => {
          log.reads.push("getitem");
          return items[index];
        },
      });
    });
  }

  get length() {
    this.#log.reads.push("length");
    return this.#items.length;
  }

  *[Symbol.iterator]() {
    this.#log.reads.push("iter");
    yield* this.#items;
  }

  toJSON() {
    this.#log.reads.push("toJSON");
    return this.#items;
  }
}

/** A CustomInput over `items` and its read log, each behind a handle. */
export async function customInput({ items }) {
  const log = new ReadLog();
  const made = { input: encode(new CustomInput(items, log)), log: encode(log) };
  // Handing the input to Python copied its fields through the getters: those reads are the kit's, not the SDK's.
  log.reads.length = 0;
  return made;
}
