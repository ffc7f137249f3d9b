/**
 * Layered (Sugiyama-style) layout of a task DAG, left to right: one column per layer.
 *
 * Up to {@link ELK_MAX_NODES} tasks go through ELK (elk-layout.ts): crossings minimised and every edge routed around
 * the nodes. Its cost grows faster than linear, so past that a linear-time layering is used instead: longest-path
 * layers, then one barycentre sweep to order each layer by its parents' rows — a 5,000-node DAG lays out in
 * milliseconds and its first screen shows titles at once (edges are then drawn straight, layer to layer).
 */
import { elkLayout, retryable, type RoutedEdge, type RoutedLayout } from './elk-layout';

/** A task's box: wide enough for three lines of title at reading size. */
export const NODE_W = 200;
export const NODE_H = 100;
const RANK_SEP = 48;
const NODE_SEP = 18;
export const ELK_MAX_NODES = 400;
const THOROUGH_MAX_NODES = 150;

export interface LayoutInput {
  id: string;
  deps: readonly string[];
}
export interface Layout {
  pos: Map<string, { x: number; y: number }>;
  layerOf: Map<string, number>;
  layers: string[][];
  /** Edge routes by `dep->task` id, when ELK laid the DAG out. */
  routes?: Map<string, RoutedEdge>;
  /** Why ELK did not lay out a DAG small enough for it (it was laid out linearly instead). */
  withoutElk?: string;
  /** Another try may bring ELK (its script's reads through the host failed): the notice offers a Retry. */
  elkRetryable?: boolean;
  width: number;
  height: number;
}

/**
 * Longest-path layer of every node (0 for nodes without dependencies), by Kahn's topological order (no recursion, so
 * long chains are fine); unknown deps are ignored, nodes on a cycle (refused by the store anyway) land in layer 0.
 */
export function layerNodes(nodes: readonly LayoutInput[]): Map<string, number> {
  const ids = new Set(nodes.map((n) => n.id));
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const n of nodes) {
    const ds = n.deps.filter((d) => ids.has(d));
    indegree.set(n.id, ds.length);
    for (const d of ds) (dependents.get(d) ?? dependents.set(d, []).get(d)!).push(n.id);
  }
  const layer = new Map<string, number>();
  const queue: string[] = [];
  for (const n of nodes) if (indegree.get(n.id) === 0) {
    queue.push(n.id);
    layer.set(n.id, 0);
  }
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i];
    const l = layer.get(id)!;
    for (const dep of dependents.get(id) ?? []) {
      layer.set(dep, Math.max(layer.get(dep) ?? 0, l + 1));
      const left = indegree.get(dep)! - 1;
      indegree.set(dep, left);
      if (left === 0) queue.push(dep);
    }
  }
  for (const n of nodes) if (!layer.has(n.id)) layer.set(n.id, 0);
  return layer;
}

/** The linear-time layout (any size): longest-path layers, one barycentre sweep. */
export function linearLayout(nodes: readonly LayoutInput[]): Layout {
  const layerOf = layerNodes(nodes);
  const layers: string[][] = [];
  for (const n of nodes) (layers[layerOf.get(n.id)!] ??= []).push(n.id);
  const pos = new Map<string, { x: number; y: number }>();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const row = new Map<string, number>();
  layers.forEach((ids, li) => {
    if (!ids) return;
    if (li > 0) {
      const key = new Map<string, number>();
      for (const id of ids) {
        const ds = (byId.get(id)?.deps ?? []).filter((d) => row.has(d));
        key.set(id, ds.length ? ds.reduce((s, d) => s + row.get(d)!, 0) / ds.length : Number.MAX_SAFE_INTEGER);
      }
      ids.sort((a, b) => key.get(a)! - key.get(b)!);
    }
    ids.forEach((id, i) => {
      row.set(id, i);
      pos.set(id, { x: 20 + li * (NODE_W + RANK_SEP), y: 20 + i * (NODE_H + NODE_SEP) });
    });
  });
  const width = 40 + layers.length * (NODE_W + RANK_SEP);
  const height = 40 + Math.max(0, ...layers.map((l) => (l?.length ?? 0))) * (NODE_H + NODE_SEP);
  return { pos, layerOf, layers: layers.map((l) => l ?? []), width, height };
}

/** The edge id the layout and the drawing share. */
export const edgeId = (dep: string, task: string) => `${dep}->${task}`;

/**
 * The layout of a DAG ELK does not take (past {@link ELK_MAX_NODES} tasks, or none): the linear one, at once — a
 * drawing can use it in its first render, without waiting a turn for a promise. Undefined where ELK lays it out.
 */
export function layoutWithoutElk(nodes: readonly LayoutInput[]): Layout | undefined {
  return nodes.length > ELK_MAX_NODES || nodes.length === 0 ? linearLayout(nodes) : undefined;
}

/**
 * The layout a DAG is drawn with: ELK's (routed edges) up to {@link ELK_MAX_NODES} tasks, else the linear one. Layers
 * are ELK's columns, so the layer list, collapsing and the drawing agree.
 */
export async function layout(nodes: readonly LayoutInput[]): Promise<Layout> {
  const linear = layoutWithoutElk(nodes);
  if (linear) return linear;
  const ids = new Set(nodes.map((n) => n.id));
  const edges = nodes.flatMap((n) => [...new Set(n.deps)].filter((d) => ids.has(d) && d !== n.id).map((d) => ({ id: edgeId(d, n.id), source: d, target: n.id })));
  // ELK's crossing minimisation repeats its sweeps `thoroughness` times: fewer past a few hundred tasks keeps the
  // layout within a second or two there (npm run bench -- dashboard).
  const thoroughness = nodes.length > THOROUGH_MAX_NODES ? '1' : '4';
  let r: RoutedLayout;
  try {
    r = await elkLayout(nodes.map((n) => ({ id: n.id, width: NODE_W, height: NODE_H })), edges, 'RIGHT', { layers: RANK_SEP, nodes: NODE_SEP }, { 'elk.layered.thoroughness': thoroughness });
  } catch (e) {
    // No ELK here (an MCP Apps view whose host reads no resources for it, or whose frame allows no worker:
    // elk-engine-inline.ts): layered linearly, and the drawing says why.
    return { ...linearLayout(nodes), withoutElk: (e as Error).message || 'it could not be started', elkRetryable: retryable(e) };
  }
  const columns = [...new Set([...r.pos.values()].map((p) => Math.round(p.x)))].sort((a, b) => a - b);
  const layerOf = new Map(nodes.map((n) => [n.id, columns.indexOf(Math.round(r.pos.get(n.id)!.x))]));
  const layers: string[][] = columns.map(() => []);
  for (const n of nodes) layers[layerOf.get(n.id)!].push(n.id);
  for (const l of layers) l.sort((a, b) => r.pos.get(a)!.y - r.pos.get(b)!.y);
  return { pos: r.pos, layerOf, layers, routes: r.edges, width: r.width, height: r.height };
}
