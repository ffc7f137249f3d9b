/**
 * The tool result as plain JSON: JSONata builds null-prototype objects and arrays tagged as sequences; the caller
 * gets ordinary values (undefined becomes null). Done once per run, on the result only.
 */
export function plainJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as unknown);
}
