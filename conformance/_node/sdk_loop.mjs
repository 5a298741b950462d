// Typed function registrations for the Node SDK's runner (`runnerFunction`), used by sdk.mjs's `typedFunction`.
//
// The Python SDK's typed registration (`from_tool` with a Pydantic model) validates a call's arguments against the
// model before the executor sees them. The Node SDK's counterpart is `runnerFunction` over a parseable Responses
// tool; of the helpers that make one, `standardResponsesFunction` takes any Standard Schema v1 validator, so the
// kit needs no validation library (zod is not a dependency of npm openai): it builds the validator here from the
// same JSON schema the plain registrations declare. Plain ESM, no dependencies.

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
