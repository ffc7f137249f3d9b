import { LineCounter, parseDocument } from 'yaml';
import { parseStrictJson } from '../../kernel/json-text';
import type { FileProblemAt } from './graph-validators';

export type FileKind = 'workflow' | 'graph' | 'unknown';

export interface DetectedFile {
  kind: FileKind;
  /** Whether the text is JSON (else YAML was tried). */
  json: boolean;
  /** Syntax problems found while parsing; the kind is `unknown` when there are any. */
  syntax: FileProblemAt[];
}

/**
 * Tells a workflow from a graph by content, not by file name: a workflow has `steps`; a graph has `tools`, `nodes` or
 * (a graph with no tools yet) `server`, and no `steps`. Text starting with `{` or `[` is read as strict JSON, anything else as YAML.
 */
export function detectFileKind(text: string): DetectedFile {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = parseStrictJson(text);
    if (!parsed.ok) return { kind: 'unknown', json: true, syntax: parsed.issues.map(({ line, column, message }) => ({ line, column, message })) };
    return { kind: kindOf(parsed.value), json: true, syntax: [] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      kind: 'unknown',
      json: false,
      syntax: doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
        return { line: pos.line, column: pos.col, message: `YAML: ${e.message.split('\n')[0]}` };
      }),
    };
  }
  return { kind: kindOf(doc.toJS()), json: false, syntax: [] };
}

function kindOf(value: unknown): FileKind {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'unknown';
  const has = (k: string) => Object.prototype.hasOwnProperty.call(value, k);
  if (has('steps')) return 'workflow';
  // A graph file may declare no tools yet (mcpgraph 0.1.27+ accepts `server` alone): it is checked, with a warning.
  if (has('tools') || has('nodes') || has('server')) return 'graph';
  return 'unknown';
}
