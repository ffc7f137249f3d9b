import { isNode, type Node as YamlNode } from 'yaml';
import { parseYamlText } from '../../../kernel/yaml-text';
import { parseStrictJson } from '../../../kernel/json-text';
import type { DocPath, PositionLookup } from '../domain/graph-issue';
import type { SourcePosition } from '../domain/types';

/** A parsed graph file: its value and where each path sits, or its syntax errors. */
export type GraphDocument =
  | { ok: true; value: unknown; positionOf: PositionLookup }
  | { ok: false; errors: Array<{ message: string; position: SourcePosition }> };

/**
 * Parses a graph file's text: `.json` files as strict JSON (jsonc-parser, with positions), anything else as YAML
 * (`yaml` with a LineCounter). Positions are 1-based; a path that goes deeper than the document points at the
 * deepest value on the way.
 */
export function parseGraphDocument(text: string, fileName: string): GraphDocument {
  return /\.json$/i.test(fileName) ? parseJson(text) : parseYaml(text);
}

function parseJson(text: string): GraphDocument {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return { ok: false, errors: parsed.issues.map((i) => ({ message: i.message, position: { line: i.line, column: i.column } })) };
  const doc = parsed.text;
  return {
    ok: true,
    value: parsed.value,
    positionOf: (path) => doc.positionOfPointer(toPointer(path)),
  };
}

function parseYaml(text: string): GraphDocument {
  const { doc, lineCounter, issues } = parseYamlText(text);
  if (issues.length > 0) return { ok: false, errors: issues.map((i) => ({ message: i.message, position: { line: i.line, column: i.column } })) };
  return {
    ok: true,
    value: doc.toJS({ maxAliasCount: 1000 }) as unknown,
    positionOf: (path: DocPath) => {
      let node: unknown = doc.contents;
      let best: YamlNode | undefined = isNode(node) ? node : undefined;
      for (const segment of path) {
        const child = isNode(node) && 'get' in node ? (node as unknown as { get(k: unknown, keep: true): unknown }).get(segment, true) : undefined;
        if (!isNode(child)) break;
        node = child;
        best = child;
      }
      const offset = best?.range?.[0];
      if (offset === undefined) return undefined;
      const pos = lineCounter.linePos(offset);
      return { line: pos.line, column: pos.col };
    },
  };
}

function toPointer(path: DocPath): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
