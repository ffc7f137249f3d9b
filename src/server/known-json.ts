/**
 * A tool answer carries its value twice, as `structuredContent` and as the same JSON in a text block. The dispatcher
 * serializes the value once for the text and remembers that JSON here; the stdio transport then writes it as the
 * `structuredContent` of the message instead of serializing the value a second time. Only values this process
 * serialized itself are remembered (weakly: they go with their answer).
 */
const known = new WeakMap<object, string>();

/** Remembers that `json` is `JSON.stringify(value)` (objects only); returns `json`. */
export function rememberJson(value: unknown, json: string): string {
  if (typeof value === 'object' && value !== null) known.set(value, json);
  return json;
}

/**
 * `JSON.stringify(message)`, reusing the remembered JSON of `message.result.structuredContent` when there is one.
 * Same text as JSON.stringify: same keys in the same order, undefined members left out.
 */
export function stringifyMessage(message: object): string {
  const result = (message as { result?: unknown }).result;
  const structured = isObject(result) ? result.structuredContent : undefined;
  const json = isObject(structured) ? known.get(structured) : undefined;
  if (json === undefined) return JSON.stringify(message);
  return members(message, (key, value) => (key === 'result' ? members(value as object, (k, v) => (k === 'structuredContent' ? json : JSON.stringify(v))) : JSON.stringify(value)));
}

function members(obj: object, write: (key: string, value: unknown) => string | undefined): string {
  // Concatenated, not joined: V8 keeps the pieces as a rope and copies them once, when the line is written.
  let out = '';
  for (const key of Object.keys(obj)) {
    const value = (obj as Record<string, unknown>)[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const text = write(key, value);
    if (text !== undefined) out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${text}`;
  }
  return `{${out}}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
