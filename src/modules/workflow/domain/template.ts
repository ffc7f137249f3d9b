import { readPath } from './context-path';

/** `{{name}}` or `{{ a.b.c }}`: a dotted path into the context. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*)\s*\}\}/g;

/**
 * Replaces `{{name}}` placeholders with context values: strings as they are, other values as JSON. A placeholder whose
 * path is missing is left as written, so the agent sees what the workflow expected rather than an empty hole.
 */
export function substitutePlaceholders(text: string, context: Record<string, unknown>, markUnset = false): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (whole, path: string) => {
    const value = readPath(context, path);
    // Current-format files: WorkRail shows a missing variable as `[unset: name]`, so the agent sees the hole.
    if (value === undefined) return markUnset ? `[unset: ${path}]` : whole;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
