import * as path from 'node:path';
import { parseStrictJson } from '../../kernel/json-text';
import { parseYamlText } from '../../kernel/yaml-text';
import type { FileProblemAt } from './graph-validators';

export type FileKind = 'workflow' | 'graph' | 'unknown';

export interface DetectedFile {
  kind: FileKind;
  /** Whether the text was read as JSON (else as YAML). */
  json: boolean;
  /** Syntax problems found while parsing, or why the value is neither kind; the kind is `unknown` when there are any. */
  syntax: FileProblemAt[];
}

const NEITHER = 'neither a workflow (no "steps") nor a graph (no "tools" or "nodes")';

/**
 * Tells a workflow from a graph by content: JSON for `.json` files and text starting with `{`/`[`, else YAML. Text
 * that parses as neither, an empty file, or a value of another shape is `unknown` with its problem at a line:col.
 */
export function detectFileKind(text: string, file = ''): DetectedFile {
  const ext = path.extname(file).toLowerCase();
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed === '') return { kind: 'unknown', json: ext === '.json', syntax: [{ line: 1, column: 1, message: `the file is empty: ${NEITHER}` }] };
  const asJson = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && (trimmed.startsWith('{') || trimmed.startsWith('[')));
  if (asJson) {
    const parsed = parseStrictJson(text);
    if (!parsed.ok) {
      // Text that is not JSON from its first character on (prose, a YAML file named .json) gets one problem there,
      // not one per word the parser stumbles over after it.
      const first = text.length - text.replace(/^[\uFEFF\s]+/, '').length;
      const issues = parsed.issues[0]!.offset === first ? parsed.issues.slice(0, 1) : parsed.issues;
      return { kind: 'unknown', json: true, syntax: issues.map(({ line, column, message }) => ({ line, column, message: `not JSON: ${message}` })) };
    }
    return classify(parsed.value, true, 'a JSON');
  }
  const { doc, issues } = parseYamlText(text);
  if (issues.length > 0) return { kind: 'unknown', json: false, syntax: issues };
  const value = doc.toJS() as unknown;
  if (typeof value !== 'object' || value === null) {
    // `this is not json` in a file of another name: YAML reads it as one plain string.
    const json = parseStrictJson(text);
    const where = json.ok ? undefined : json.issues[0];
    return {
      kind: 'unknown',
      json: false,
      syntax: [{ line: where?.line ?? 1, column: where?.column ?? 1, message: `not JSON${where ? ` (${where.message})` : ''}, and as YAML it is a ${describeValue(value)}, not a mapping: ${NEITHER}` }],
    };
  }
  return classify(value, false, 'a YAML');
}

function classify(value: unknown, json: boolean, what: string): DetectedFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'unknown', json, syntax: [{ line: 1, column: 1, message: `${what} ${describeValue(value)}, not an object: ${NEITHER}` }] };
  }
  const has = (k: string) => Object.prototype.hasOwnProperty.call(value, k);
  if (has('steps')) return { kind: 'workflow', json, syntax: [] };
  // A graph file may declare no tools yet (mcpgraph 0.1.27+ accepts `server` alone): it is checked, with a warning.
  if (has('tools') || has('nodes') || has('server')) return { kind: 'graph', json, syntax: [] };
  return { kind: 'unknown', json, syntax: [] };
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'null';
  return typeof value;
}
