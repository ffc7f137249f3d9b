/**
 * Layered (Sugiyama-style) layout of a DAG, left to right: one column per layer.
 *
 * Small graphs go through dagre (crossing minimisation, good-looking). Its cost grows much faster than linear, so
 * past {@link DAGRE_MAX_NODES} nodes a linear-time layering is used instead: longest-path layers, then one
 * barycentre sweep to order each layer by its parents' rows — a 5,000-node DAG lays out in milliseconds and its first
 * screen shows titles at once.
 */
import dagre from '@dagrejs/dagre';

export const NODE_W = 230;
export const NODE_H = 64;
const RANK_SEP = 90;
const NODE_SEP = 18;
export const DAGRE_MAX_NODES = 600;

export interface LayoutInput {
  id: string;
  deps: readonly string[];
}
export interface Layout {
  pos: Map<string, { x: number; y: number }>;
  layerOf: Map<string, number>;
  layers: string[][];
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

export function layout(nodes: readonly LayoutInput[]): Layout {
  const layerOf = layerNodes(nodes);
  const layers: string[][] = [];
  for (const n of nodes) (layers[layerOf.get(n.id)!] ??= []).push(n.id);
  const pos = new Map<string, { x: number; y: number }>();
  if (nodes.length <= DAGRE_MAX_NODES) {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: 'LR', ranksep: RANK_SEP, nodesep: NODE_SEP, marginx: 20, marginy: 20 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
    for (const n of nodes) for (const d of n.deps) if (layerOf.has(d)) g.setEdge(d, n.id);
    dagre.layout(g);
    for (const n of nodes) {
      const p = g.node(n.id);
      pos.set(n.id, { x: p.x - NODE_W / 2, y: p.y - NODE_H / 2 });
    }
    return { pos, layerOf, layers: layers.map((l) => l ?? []) };
  }
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
  return { pos, layerOf, layers: layers.map((l) => l ?? []) };
}
