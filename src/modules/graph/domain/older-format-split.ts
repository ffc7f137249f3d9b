/**
 * How a graph file in mcpgraph's older format (one top-level `nodes` list; each tool's `entry` and `exit` name it in
 * `tool`) is split into the nested format (nodes under `tools[].nodes`), as mcpgraph itself moved its files when it
 * put nodes under tools: each tool takes its own entry and exit and every shared node its entry reaches, in file
 * order (a node two tools reach goes to both). Shared nodes no entry reaches go with the first tool, so nothing of
 * the file is lost. Pure: the caller parsed the file.
 */
export interface OlderFormatSplit {
  /** For each entry of `tools`, the indices into the top-level `nodes` it takes, ascending. */
  nodesOfTool: number[][];
  /** The indices of `entry`/`exit` nodes, whose `tool` field the nested format does not have. */
  boundaryNodes: number[];
}

/** The split of an older-format document, or the reason it cannot be split (a message naming the node or field). */
export function splitOlderNodes(doc: unknown): { ok: true; split: OlderFormatSplit } | { ok: false; reason: string } {
  const root = isRecord(doc) ? doc : {};
  const nodes = Array.isArray(root.nodes) ? root.nodes : [];
  const tools = Array.isArray(root.tools) ? root.tools : [];
  const toolNames = tools.map((t) => (isRecord(t) && typeof t.name === 'string' ? t.name : undefined));
  const byId = new Map<string, number>();
  const shared: number[] = [];
  const boundaryNodes: number[] = [];
  const own = new Map<string, number[]>();
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (!isRecord(n) || typeof n.id !== 'string') return { ok: false, reason: `nodes[${i}] is not a node with an id` };
    if (n.type === 'entry' || n.type === 'exit') {
      const tool = typeof n.tool === 'string' ? n.tool : undefined;
      if (tool === undefined || !toolNames.includes(tool)) {
        return { ok: false, reason: `node '${n.id}' (${n.type}) names ${tool === undefined ? 'no tool' : `tool '${tool}', which is not declared under 'tools'`}: fix it first` };
      }
      boundaryNodes.push(i);
      own.set(tool, [...(own.get(tool) ?? []), i]);
    } else {
      shared.push(i);
      if (!byId.has(n.id)) byId.set(n.id, i);
    }
  }
  if (tools.length === 0 && shared.length > 0) return { ok: false, reason: "the file declares nodes but no tools to put them under: add a tool to 'tools' by hand first" };

  const claimed = new Set<number>();
  const nodesOfTool = toolNames.map((name) => {
    const mine = name === undefined ? [] : (own.get(name) ?? []);
    const ids = new Map(byId);
    for (const i of mine) ids.set((nodes[i] as Record<string, unknown>).id as string, i);
    const taken = new Set<number>(mine);
    const queue = mine.filter((i) => (nodes[i] as Record<string, unknown>).type === 'entry');
    while (queue.length > 0) {
      for (const next of successors(nodes[queue.pop()!] as Record<string, unknown>)) {
        const j = ids.get(next);
        if (j === undefined || taken.has(j)) continue;
        taken.add(j);
        queue.push(j);
      }
    }
    for (const i of taken) claimed.add(i);
    return [...taken];
  });
  const unclaimed = shared.filter((i) => !claimed.has(i));
  if (nodesOfTool.length > 0) nodesOfTool[0]!.push(...unclaimed);
  return { ok: true, split: { nodesOfTool: nodesOfTool.map((list) => list.sort((a, b) => a - b)), boundaryNodes } };
}

/** The node ids a raw node hands control to (`next`, each condition's `target` or `next`). */
function successors(n: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof n.next === 'string') out.push(n.next);
  if (Array.isArray(n.conditions)) {
    for (const c of n.conditions) {
      if (!isRecord(c)) continue;
      const target = typeof c.target === 'string' ? c.target : typeof c.next === 'string' ? c.next : undefined;
      if (target !== undefined) out.push(target);
    }
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
