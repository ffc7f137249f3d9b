/**
 * Dotted paths into a workflow context (`user.name`, `files.0`): how conditions, `forEach.items`, `for.count` and
 * `{{placeholders}}` name a value.
 */

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value at a dotted path, or `undefined` when any segment is missing. A key that itself contains dots is found
 * too (`{"a.b": 1}` answers `a.b`), since agents sometimes flatten their context. Only own properties are read, so a
 * path can never reach `constructor` or `__proto__` of a prototype.
 */
export function readPath(context: unknown, path: string): unknown {
  if (path === '') return context;
  if (isPlainObject(context) && Object.prototype.hasOwnProperty.call(context, path)) return context[path];
  let current: unknown = context;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Structural equality of JSON values (objects compared key by key, arrays element by element). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => jsonEqual(x, bs[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
}
