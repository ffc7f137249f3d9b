import type { TaskGraph, TaskNode } from '../domain';

/**
 * `task_graph.json`'s text, kept cheap for large plans. Each change of a project reads the whole file under the lock
 * and writes it whole again; at 10,000 tasks parsing and serializing 3 MB of JSON was most of an edit's cost. Two
 * things cut it without changing a byte of the file:
 *
 * - {@link GraphFileMemo}: the last text this process read or wrote of each graph file, and what it parsed to. The same
 *   text parses to the same graph, so a file nobody else changed is compared (one string compare), not parsed again;
 *   any other text — another process's write, a hand edit — is parsed as before.
 * - {@link serializeGraph}: the same text as `JSON.stringify(doc, null, 2)`, with each node's text kept per node object
 *   (nodes are immutable: a changed node is a new object), so only the nodes a change made are serialized.
 */
export class GraphFileMemo<R> {
  private readonly last = new Map<string, { text: string; reading: R }>();

  constructor(private readonly max = 16) {}

  /** What `text` parsed to when this file last had it; else `parse(text)` (remembered when it succeeds). */
  parse(file: string, text: string, parse: (text: string) => R): R {
    const known = this.last.get(file);
    if (known && known.text === text) return known.reading;
    const reading = parse(text);
    this.remember(file, text, reading);
    return reading;
  }

  /** Records what a write puts in the file (a write that then fails leaves a text the file does not have: never matched). */
  remember(file: string, text: string, reading: R): void {
    this.last.delete(file);
    this.last.set(file, { text, reading });
    if (this.last.size > this.max) this.last.delete(this.last.keys().next().value!);
  }
}

/** Each node's text as it stands in the file (indented for its depth), by node object. */
const nodeTexts = new WeakMap<TaskNode, string>();

function nodeText(node: TaskNode): string {
  let text = nodeTexts.get(node);
  if (text === undefined) {
    // JSON escapes line breaks inside strings, so every newline here is layout: indent it for the depth.
    text = '    ' + JSON.stringify(node, null, 2).replace(/\n/g, '\n    ');
    nodeTexts.set(node, text);
  }
  return text;
}

/** `JSON.stringify(doc, null, 2) + '\n'`, byte for byte, serializing only nodes not serialized before. */
export function serializeGraph(doc: TaskGraph): string {
  const head = JSON.stringify({ ...doc, nodes: [] }, null, 2);
  if (!doc.nodes.length) return head + '\n';
  // The header's only `"nodes": []` is the key (quotes inside string values are escaped); a function replacement,
  // so `$&` in a task's text stays text.
  const body = doc.nodes.map(nodeText).join(',\n');
  return head.replace('"nodes": []', () => `"nodes": [\n${body}\n  ]`) + '\n';
}

/** Freezes a graph shared by the memo's readers (its nodes and list; the domain never changes them in place). */
export function freezeGraph<G extends TaskGraph>(graph: G): G {
  for (const n of graph.nodes) Object.freeze(n);
  Object.freeze(graph.nodes);
  return Object.freeze(graph);
}
