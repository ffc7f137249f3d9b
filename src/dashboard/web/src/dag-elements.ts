import type { Edge, Node } from '@xyflow/react';
import { edgeId, NODE_H, NODE_W, type Layout } from './layout';
import type { TaskNodeData } from './components/TaskNodeView';
import type { RoutedEdgeData } from './components/RoutedEdgeView';
import type { TaskGraphData, TaskNode } from './types';

/*
 * What the task DAG page hands React Flow, as functions of the graph, its layout and the page's state: the tasks in
 * the window of a large DAG, and the nodes and edges drawn (collapsed layers as one summary node each).
 */

export type Viewport = { x: number; y: number; zoom: number };

/** The tasks within the viewport plus half a screen around it, and their direct neighbours (and the selected task). */
export function windowTaskIds(graph: TaskGraphData, lay: Layout, viewport: Viewport, size: { w: number; h: number }, selected: string | undefined): Set<string> {
  const z = viewport.zoom;
  const x0 = -viewport.x / z - size.w / z / 2;
  const y0 = -viewport.y / z - size.h / z / 2;
  const x1 = x0 + (2 * size.w) / z;
  const y1 = y0 + (2 * size.h) / z;
  const ids = new Set<string>();
  for (const n of graph.nodes) {
    const p = lay.pos.get(n.id)!;
    if (p.x + NODE_W >= x0 && p.x <= x1 && p.y + NODE_H >= y0 && p.y <= y1) ids.add(n.id);
  }
  const withNeighbours = new Set(ids);
  for (const n of graph.nodes) {
    const inside = ids.has(n.id);
    for (const d of n.depends_on) {
      if (inside) withNeighbours.add(d);
      else if (ids.has(d)) withNeighbours.add(n.id);
    }
  }
  if (selected) withNeighbours.add(selected);
  return withNeighbours;
}

/** What the page shows of the DAG: the collapsed layers, the search's matches, the selection, the window (large DAGs). */
export interface DagShown {
  collapsed: ReadonlySet<number>;
  matchSet: ReadonlySet<string>;
  selected: string | undefined;
  windowIds: ReadonlySet<string> | null;
}

/** React Flow's nodes and edges for the DAG as shown: an edge into or out of a collapsed layer goes to its summary node. */
export function flowElements(graph: TaskGraphData, lay: Layout, byId: ReadonlyMap<string, TaskNode>, shown: DagShown): { nodes: Node[]; edges: Edge[] } {
  const { collapsed, matchSet, selected, windowIds } = shown;
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const shownAs = (id: string) => (collapsed.has(lay.layerOf.get(id)!) ? `layer:${lay.layerOf.get(id)}` : id);
  lay.layers.forEach((ids, li) => {
    if (!collapsed.has(li)) return;
    const counts: Record<string, number> = {};
    for (const id of ids) counts[byId.get(id)!.status] = (counts[byId.get(id)!.status] ?? 0) + 1;
    const first = lay.pos.get(ids[0])!;
    nodes.push({ id: `layer:${li}`, type: 'layer', position: { x: first.x, y: 20 }, data: { layer: li, count: ids.length, counts }, draggable: false });
  });
  const seenEdges = new Set<string>();
  for (const n of graph.nodes) {
    if (windowIds && !windowIds.has(n.id) && !collapsed.has(lay.layerOf.get(n.id)!)) continue;
    const target = shownAs(n.id);
    if (target === n.id) {
      const data: TaskNodeData = {
        title: n.title,
        taskId: n.id,
        status: n.status,
        attempt: n.current_attempt > 0 ? `attempt ${n.current_attempt}/${n.max_attempts}` : '',
        match: matchSet.has(n.id),
      };
      nodes.push({ id: n.id, type: 'task', position: lay.pos.get(n.id)!, data, selected: n.id === selected, draggable: false, width: NODE_W, height: NODE_H });
    }
    for (const d of n.depends_on) {
      if (!byId.has(d)) continue;
      if (windowIds && !windowIds.has(d) && !collapsed.has(lay.layerOf.get(d)!)) continue;
      const source = shownAs(d);
      const key = `${source}->${target}`;
      if (source === target || seenEdges.has(key)) continue;
      seenEdges.add(key);
      const done = byId.get(d)!.status === 'COMPLETED';
      const style = { stroke: done ? '#40a861' : '#8a94a6', strokeWidth: 1.4 };
      const route = source === d && target === n.id ? lay.routes?.get(edgeId(d, n.id)) : undefined;
      if (route) edges.push({ id: key, source, target, type: 'routed', data: { route } satisfies RoutedEdgeData, style });
      else edges.push({ id: key, source, target, type: 'smoothstep', style });
    }
  }
  return { nodes, edges };
}
