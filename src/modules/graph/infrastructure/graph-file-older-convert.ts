import { isMap, isScalar, isSeq, parseDocument, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { applyEdits, modify, parse as parseJsonc, parseTree } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';
import { InvalidArgumentsError } from '../../../kernel/errors';
import { splitOlderNodes, type OlderFormatSplit } from '../domain/older-format-split';
import { jsonFormattingOf, lineEnd } from './graph-file-text-edit';

type Raw = Record<string, unknown>;
type Range = [number, number, number];

/**
 * A graph file in mcpgraph's older format (one top-level `nodes` list) rewritten in the nested format (nodes under
 * `tools[].nodes`, servers under `mcpServers`), the split of domain/older-format-split.ts — what the authoring tools
 * do before their first change of such a file, as mcpgraph moved its own files (and as its toolkit only writes the
 * nested format). YAML: each node's lines (with the comment and blank lines above it) are moved under its tool,
 * re-indented, without the entry/exit `tool:` line; the `nodes:` key goes, `servers:` is renamed; every other byte
 * stays. A layout that cannot be moved line by line (flow collections) is converted through the `yaml` document
 * (comments kept, spacing normalized). JSON through jsonc-parser. The result is read back and must hold exactly the
 * tools and nodes intended, or nothing is answered.
 * @throws InvalidArgumentsError (field `file`) when the file cannot be split (an entry naming no declared tool …).
 */
export function convertOlderFormat(text: string, fileName: string): string {
  const isJson = /\.json$/i.test(fileName);
  const value = (isJson ? parseJsonc(text) : parseDocument(text).toJS({ maxAliasCount: 1000 })) as unknown;
  const refuse = (reason: string) => new InvalidArgumentsError(`file: ${fileName} is in mcpgraph's older format and cannot be converted to the nested one: ${reason}`, 'file');
  const parsed = splitOlderNodes(value);
  if (!parsed.ok) throw refuse(parsed.reason);
  const root = value as Raw;
  const tools = (Array.isArray(root.tools) ? root.tools : []) as unknown[];
  const nested = tools.findIndex((t) => isRecord(t) && t.nodes !== undefined);
  if (nested >= 0) throw refuse(`tools[${nested}] has nodes of its own besides the top-level list: keep one of the two by hand first`);
  const expected = comparable(nestedValue(root, parsed.split));
  const attempts = isJson ? [() => convertJson(text, root, parsed.split)] : [() => convertYamlLines(text, parsed.split), () => convertYamlDocument(text, parsed.split)];
  for (const attempt of attempts) {
    try {
      const out = attempt();
      if (out === undefined) continue;
      const back = (isJson ? parseJsonc(out) : parseDocument(out).toJS({ maxAliasCount: 1000 })) as unknown;
      if (isDeepStrictEqual(comparable(back), expected)) return out;
    } catch {
      // Not this way (an alias moved before its anchor …): the next, else the refusal below.
    }
  }
  throw refuse(`its nested ${isJson ? 'JSON' : 'YAML'} did not read back as the same tools and nodes (anchors or aliases shared between nodes?): move the nodes under tools[].nodes by hand`);
}

/** The document the conversion means: `nodes` moved under the tools, boundary nodes without `tool`, servers renamed. */
function nestedValue(root: Raw, split: OlderFormatSplit): Raw {
  const nodes = root.nodes as unknown[];
  const boundary = new Set(split.boundaryNodes);
  const { nodes: _nodes, ...rest } = root;
  const out: Raw = { ...rest };
  if (renamesServers(root)) {
    delete out.servers;
    out.mcpServers = root.servers;
  }
  if (Array.isArray(root.tools)) {
    out.tools = root.tools.map((t, ti) => ({ ...(t as Raw), nodes: split.nodesOfTool[ti]!.map((i) => (boundary.has(i) ? withoutTool(nodes[i] as Raw) : nodes[i])) }));
  }
  return out;
}

function renamesServers(root: Raw): boolean {
  return root.servers !== undefined && root.mcpServers === undefined;
}

/** A document with the `tool` field of entry/exit nodes under tools dropped (left in place where a line could not go). */
function comparable(doc: unknown): unknown {
  if (!isRecord(doc) || !Array.isArray(doc.tools)) return doc;
  return {
    ...doc,
    tools: doc.tools.map((t) =>
      isRecord(t) && Array.isArray(t.nodes) ? { ...t, nodes: t.nodes.map((n) => (isRecord(n) && (n.type === 'entry' || n.type === 'exit') ? withoutTool(n) : n)) } : t,
    ),
  };
}

function withoutTool(n: Raw): Raw {
  const { tool: _tool, ...rest } = n;
  return rest;
}

/** The line-by-line move, or undefined when the layout is not block lists of block mappings. */
function convertYamlLines(text: string, split: OlderFormatSplit): string | undefined {
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) return undefined;
  const root = doc.contents as YAMLMap;
  const pairOf = (key: string) => root.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<unknown, unknown> | undefined;
  const nodesPair = pairOf('nodes');
  const nodesSeq = nodesPair?.value;
  if (!nodesPair || !isSeq(nodesSeq) || (nodesSeq as YAMLSeq).flow || (nodesSeq as YAMLSeq).items.length === 0) return undefined;
  const nodeItems = (nodesSeq as YAMLSeq).items;
  if (!nodeItems.every((n) => isMap(n) && !(n as YAMLMap).flow)) return undefined;
  const toolsSeq = pairOf('tools')?.value;
  const toolItems = isSeq(toolsSeq) ? (toolsSeq as YAMLSeq).items : [];
  if (toolItems.length > 0 && ((toolsSeq as YAMLSeq).flow || !toolItems.every((t) => isMap(t) && !(t as YAMLMap).flow && (t as YAMLMap).items.length > 0))) return undefined;

  const edits: Array<{ start: number; end: number; text: string }> = [];
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // Each node's chunk: from the end of the one before (for the first, the line after `nodes:`) to the end of its item.
  const keyRange = (nodesPair.key as { range?: Range }).range!;
  const keyLineStart = text.lastIndexOf('\n', keyRange[0] - 1) + 1;
  const afterKeyLine = lineEnd(text, keyRange[1]);
  const boundary = new Set(split.boundaryNodes);
  const chunks: Array<{ text: string; indent: number }> = [];
  let from = afterKeyLine;
  for (let i = 0; i < nodeItems.length; i++) {
    const item = nodeItems[i] as YAMLMap;
    const at = itemBounds(text, item);
    if (at === undefined || at.lineStart < from) return undefined;
    let chunk = text.slice(from, at.end);
    if (boundary.has(i)) {
      const cut = toolLine(text, item);
      if (cut) chunk = chunk.slice(0, cut.start - from) + chunk.slice(cut.end - from);
    }
    chunks.push({ text: chunk.endsWith('\n') ? chunk : chunk + eol, indent: at.indent });
    from = at.end;
  }
  // `nodes:` and its items go; a comment on the key's line stays where it was.
  const keyComment = /#.*$/.exec(text.slice(keyRange[1], afterKeyLine).replace(/\r?\n$/, ''))?.[0];
  edits.push({ start: keyLineStart, end: from, text: keyComment ? `${' '.repeat(keyRange[0] - keyLineStart)}${keyComment}${eol}` : '' });

  toolItems.forEach((t, ti) => {
    const tool = t as YAMLMap;
    const at = itemBounds(text, tool)!;
    const firstKey = ((tool.items[0]!.key as { range?: Range }).range ?? [0])[0]!;
    const keyColumn = firstKey - (text.lastIndexOf('\n', firstKey - 1) + 1);
    const body = split.nodesOfTool[ti]!.map((i, k) => reindent(k === 0 ? chunks[i]!.text.replace(/^([ \t]*\r?\n)+/, '') : chunks[i]!.text, keyColumn + 2 - chunks[i]!.indent)).join('');
    const glue = at.end > 0 && text[at.end - 1] !== '\n' ? eol : '';
    edits.push({ start: at.end, end: at.end, text: `${glue}${' '.repeat(keyColumn)}nodes:${body === '' ? ` []${eol}` : `${eol}${body}`}` });
  });
  const servers = pairOf('servers');
  if (servers && !pairOf('mcpServers')) {
    const r = (servers.key as { range?: Range }).range!;
    edits.push({ start: r[0], end: r[1], text: 'mcpServers' });
  }
  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** Where a block-list item sits: the start of its dash's line, the dash's column, the end of its last line. */
function itemBounds(text: string, item: { range?: Range | null }): { lineStart: number; indent: number; end: number } | undefined {
  const range = item.range;
  if (!range) return undefined;
  const dash = text.lastIndexOf('-', range[0] - 1);
  const lineStart = text.lastIndexOf('\n', dash - 1) + 1;
  if (text.slice(lineStart, dash).trim() !== '') return undefined;
  const end = range[2] > 0 && text[range[2] - 1] === '\n' ? range[2] : lineEnd(text, range[2]);
  return { lineStart, indent: dash - lineStart, end };
}

/** The lines of a block node's `tool:` pair when they are lines of their own (not the dash's line), else undefined. */
function toolLine(text: string, node: YAMLMap): { start: number; end: number } | undefined {
  const index = node.items.findIndex((p) => isScalar(p.key) && p.key.value === 'tool');
  if (index <= 0) return undefined;
  const pair = node.items[index]!;
  const keyStart = (pair.key as { range?: Range }).range?.[0];
  const valueEnd = (pair.value as { range?: Range } | null)?.range?.[1];
  if (keyStart === undefined || valueEnd === undefined) return undefined;
  const start = text.lastIndexOf('\n', keyStart - 1) + 1;
  if (text.slice(start, keyStart).trim() !== '') return undefined;
  const end = lineEnd(text, valueEnd);
  if (!/^\s*(#.*)?$/.test(text.slice(valueEnd, end))) return undefined;
  return { start, end };
}

/** `chunk` moved `shift` columns right (left when negative), every line alike, so block scalars keep their meaning. */
function reindent(chunk: string, shift: number): string {
  return chunk
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      if (shift >= 0) return ' '.repeat(shift) + line;
      const lead = /^ */.exec(line)![0].length;
      return line.slice(Math.min(lead, -shift));
    })
    .join('\n');
}

/** The conversion through the `yaml` document: comments kept with their nodes, the layout the stringifier's. */
function convertYamlDocument(text: string, split: OlderFormatSplit): string {
  const doc = parseDocument(text);
  const nodesSeq = doc.get('nodes', true) as YAMLSeq;
  const toolsSeq = doc.get('tools', true) as YAMLSeq | undefined;
  const boundary = new Set(split.boundaryNodes);
  (toolsSeq?.items ?? []).forEach((t, ti) => {
    const seq = doc.createNode([]) as YAMLSeq;
    for (const i of split.nodesOfTool[ti]!) {
      const node = (nodesSeq.items[i] as YAMLMap).clone();
      if (boundary.has(i)) node.delete('tool');
      seq.items.push(node);
    }
    (t as YAMLMap).set('nodes', seq);
  });
  // The comments on `nodes:` stay: with the key after it, else at the end of the document.
  const rootMap = doc.contents as YAMLMap;
  const at = rootMap.items.findIndex((p) => isScalar(p.key) && p.key.value === 'nodes');
  const nodesKey = rootMap.items[at]!.key as { commentBefore?: string | null; comment?: string | null };
  const kept = [nodesKey.commentBefore, nodesKey.comment, nodesSeq.commentBefore, nodesSeq.comment].filter((c): c is string => !!c).join('\n');
  doc.delete('nodes');
  if (kept) {
    const following = rootMap.items[at]?.key as { commentBefore?: string | null } | undefined;
    if (following) following.commentBefore = following.commentBefore ? `${kept}\n${following.commentBefore}` : kept;
    else doc.comment = doc.comment ? `${doc.comment}\n${kept}` : kept;
  }
  const servers = (doc.contents as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === 'servers');
  if (servers && !doc.has('mcpServers')) (servers.key as { value: unknown }).value = 'mcpServers';
  return doc.toString({ lineWidth: 0 });
}

/** The conversion of a JSON file through jsonc-parser (its indentation kept; JSON has no comments to keep). */
function convertJson(text: string, root: Raw, split: OlderFormatSplit): string {
  const formattingOptions = jsonFormattingOf(text);
  const target = nestedValue(root, split);
  let out = text;
  const tools = (target.tools as Raw[] | undefined) ?? [];
  tools.forEach((t, ti) => {
    out = applyEdits(out, modify(out, ['tools', ti, 'nodes'], t.nodes, { formattingOptions }));
  });
  out = applyEdits(out, modify(out, ['nodes'], undefined, { formattingOptions }));
  if (renamesServers(root)) {
    const key = parseTree(out)?.children?.find((p) => p.children?.[0]?.value === 'servers')?.children?.[0];
    if (key) out = `${out.slice(0, key.offset)}"mcpServers"${out.slice(key.offset + key.length)}`;
  }
  return out;
}

function isRecord(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
