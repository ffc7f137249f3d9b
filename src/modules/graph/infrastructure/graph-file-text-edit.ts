import { isMap, isScalar, isSeq, parseDocument, stringify, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { applyEdits, modify, parse as parseJsonc } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';

/** One change to the `tools` list of a graph file: add a tool at the end, replace the tool at `index`, or remove it. */
export type ToolListEdit = { kind: 'add'; tool: Record<string, unknown> } | { kind: 'replace'; index: number; tool: Record<string, unknown> } | { kind: 'remove'; index: number };

/**
 * Applies one edit of the `tools` list to a graph file's text and returns the new text. Every byte outside the edited
 * tool stays as it was — comments, blank lines, quoting, flow collections, the order of the other tools — because only
 * the edited item's range is rewritten: YAML through the `yaml` package's document (node ranges), the new item
 * written by its stringifier at the list's indentation; JSON through jsonc-parser's `modify` (layout kept, indentation
 * detected). The result is parsed again and must hold exactly the tools expected, or nothing is answered.
 * @throws Error when the text is not a document with a `tools` list it can edit (the caller validated it before).
 */
export function editToolList(text: string, fileName: string, edit: ToolListEdit): string {
  const isJson = /\.json$/i.test(fileName);
  const before = toolsOf(isJson ? parseJsonc(text) : parseDocument(text).toJS());
  const expected = applyToList(before, edit);
  const out = isJson ? editJson(text, edit, before.length) : editYaml(text, edit);
  const after = toolsOf(isJson ? parseJsonc(out) : parseDocument(out).toJS());
  if (!isDeepStrictEqual(after, expected)) throw new Error(`the edited ${isJson ? 'JSON' : 'YAML'} did not read back as the tools intended`);
  return out;
}

function toolsOf(doc: unknown): unknown[] {
  const tools = doc && typeof doc === 'object' ? (doc as Record<string, unknown>).tools : undefined;
  return Array.isArray(tools) ? tools : [];
}

function applyToList(tools: readonly unknown[], edit: ToolListEdit): unknown[] {
  const next = [...tools];
  if (edit.kind === 'add') next.push(edit.tool);
  else if (edit.kind === 'replace') next[edit.index] = edit.tool;
  else next.splice(edit.index, 1);
  return next;
}

/** jsonc-parser's formatting for a JSON text: its own indentation (spaces or tabs) and line ends. */
export function jsonFormattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.includes('\t'), tabSize: indent.includes('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function editJson(text: string, edit: ToolListEdit, count: number): string {
  const formattingOptions = jsonFormattingOf(text);
  const edits =
    edit.kind === 'add'
      ? modify(text, ['tools', count], edit.tool, { formattingOptions, isArrayInsertion: true })
      : modify(text, ['tools', edit.index], edit.kind === 'replace' ? edit.tool : undefined, { formattingOptions });
  return applyEdits(text, edits);
}

/** The YAML text of `items` as a block sequence, each line indented by `indent` spaces. */
function blockItems(items: readonly unknown[], indent: number): string {
  const body = stringify(items, { lineWidth: 0, minContentWidth: 0 });
  const pad = ' '.repeat(indent);
  return body
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

function editYaml(text: string, edit: ToolListEdit): string {
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) throw new Error('the document is not a mapping');
  const pair = (doc.contents as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === 'tools') as Pair<unknown, unknown> | undefined;
  const seq = pair && isSeq(pair.value) && !(pair.value as YAMLSeq).flow && (pair.value as YAMLSeq).items.length > 0 ? (pair.value as YAMLSeq) : undefined;
  if (!seq) return rewriteToolsPair(text, pair, applyToList(toolsOf(doc.toJS()), edit));

  const items = seq.items as Array<{ range?: [number, number, number] }>;
  const itemAt = (i: number) => {
    const range = items[i]?.range;
    if (!range) throw new Error(`tools[${i}] has no source range`);
    const dash = text.lastIndexOf('-', range[0] - 1);
    const lineStart = text.lastIndexOf('\n', dash - 1) + 1;
    const end = range[2] > 0 && text[range[2] - 1] === '\n' ? range[2] : lineEnd(text, range[2]);
    return { lineStart, indent: dash - lineStart, end };
  };
  if (edit.kind === 'add') {
    const last = itemAt(items.length - 1);
    const glue = last.end > 0 && text[last.end - 1] !== '\n' ? '\n' : '';
    return text.slice(0, last.end) + glue + blockItems([edit.tool], last.indent) + text.slice(last.end);
  }
  const at = itemAt(edit.index);
  if (edit.kind === 'replace') return text.slice(0, at.lineStart) + blockItems([edit.tool], at.indent) + text.slice(at.end);
  if (items.length === 1) return rewriteToolsPair(text, pair, []);
  // The comment lines right above the removed tool, at its indentation, went with it.
  let from = at.lineStart;
  const pad = ' '.repeat(at.indent);
  while (from > 0) {
    const prevStart = text.lastIndexOf('\n', from - 2) + 1;
    const line = text.slice(prevStart, from - 1);
    if (!(line.startsWith(`${pad}#`) || (at.indent === 0 && line.startsWith('#')))) break;
    from = prevStart;
  }
  return text.slice(0, from) + text.slice(at.end);
}

/** Rewrites the whole `tools:` entry (absent, null, `[]`, a flow list, or emptied) as a block list at the end or in place. */
function rewriteToolsPair(text: string, pair: Pair<unknown, unknown> | undefined, tools: readonly unknown[]): string {
  const value = tools.length === 0 ? 'tools: []\n' : `tools:\n${blockItems(tools, 2)}`;
  const keyRange = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
  if (!pair || !keyRange) return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${value}`;
  const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
  const start = text.lastIndexOf('\n', keyRange[0] - 1) + 1;
  const end = valueRange ? (text[valueRange[2] - 1] === '\n' ? valueRange[2] : lineEnd(text, valueRange[2])) : lineEnd(text, keyRange[1]);
  return text.slice(0, start) + value + text.slice(end);
}

/** The offset just after the end of the line holding `offset` (after its newline, or the end of the text). */
export function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl + 1;
}
