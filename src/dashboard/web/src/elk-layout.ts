/**
 * Layered layout with edge routing by ELK (elkjs, the Eclipse Layout Kernel compiled to JavaScript): nodes in layers,
 * crossings minimised, and every edge routed orthogonally between the layers and around the nodes — never through a
 * node that lies between its two ends. Edge labels are placed by ELK beside their edge, so a label never sits on a
 * line. The engine runs in a Web Worker on the dashboard and on the page's thread in the MCP Apps views
 * (elk-engine.ts, elk-engine-inline.ts).
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { elkEngine } from './elk-engine';

export interface Point {
  x: number;
  y: number;
}
export interface LayoutNodeIn {
  id: string;
  width: number;
  height: number;
}
export interface LayoutEdgeIn {
  id: string;
  source: string;
  target: string;
  label?: { text: string; width: number; height: number };
}
export interface RoutedEdge {
  points: Point[];
  label?: Point & { width: number; height: number };
}
export interface RoutedLayout {
  /** Top-left corner of each node. */
  pos: Map<string, Point>;
  edges: Map<string, RoutedEdge>;
  width: number;
  height: number;
}

export type Direction = 'RIGHT' | 'DOWN';

/** Lays the graph out; `direction` is where the edges point (RIGHT: layers are columns, left to right). */
export async function elkLayout(
  nodes: readonly LayoutNodeIn[],
  edges: readonly LayoutEdgeIn[],
  direction: Direction,
  spacing = { layers: 48, nodes: 22 },
  options: Record<string, string> = {},
): Promise<RoutedLayout> {
  const ids = new Set(nodes.map((n) => n.id));
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': direction,
      'elk.edgeRouting': 'ORTHOGONAL',
      // Tasks are placed as early as their dependencies allow: a layer is "can start after the layers before it".
      'elk.layered.layering.strategy': 'LONGEST_PATH_SOURCE',
      'elk.layered.spacing.nodeNodeBetweenLayers': String(spacing.layers),
      'elk.spacing.nodeNode': String(spacing.nodes),
      'elk.spacing.edgeNode': '12',
      'elk.spacing.edgeEdge': '8',
      'elk.layered.spacing.edgeNodeBetweenLayers': '14',
      'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.thoroughness': '4',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.edgeLabels.sideSelection': 'SMART_DOWN',
      'elk.padding': '[top=16,left=16,bottom=16,right=16]',
      ...options,
    },
    children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: edges
      .filter((e) => ids.has(e.source) && ids.has(e.target))
      .map((e): ElkExtendedEdge => ({
        id: e.id,
        sources: [e.source],
        targets: [e.target],
        ...(e.label ? { labels: [{ text: e.label.text, width: e.label.width, height: e.label.height }] } : {}),
      })),
  };
  const out = await (await elkEngine()).layout(graph);
  const pos = new Map<string, Point>();
  for (const c of out.children ?? []) pos.set(c.id, { x: c.x ?? 0, y: c.y ?? 0 });
  const routed = new Map<string, RoutedEdge>();
  for (const e of (out.edges ?? []) as ElkExtendedEdge[]) {
    const points: Point[] = [];
    for (const s of e.sections ?? []) {
      if (!points.length) points.push(s.startPoint);
      points.push(...(s.bendPoints ?? []), s.endPoint);
    }
    const l = e.labels?.[0];
    routed.set(e.id, { points, ...(l && l.x !== undefined && l.y !== undefined ? { label: { x: l.x, y: l.y, width: l.width ?? 0, height: l.height ?? 0 } } : {}) });
  }
  return { pos, edges: routed, width: out.width ?? 0, height: out.height ?? 0 };
}

/** Whether another try may bring ELK after `elkLayout` failed: its engine said so (the reads of its script failed). */
export function retryable(e: unknown): boolean {
  return (e as { retryable?: unknown } | undefined)?.retryable === true;
}

/** An SVG path through the points, its corners rounded by up to `r`. */
export function roundedPath(points: readonly Point[], r = 6): string {
  if (points.length === 0) return '';
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [a, b, c] = [points[i - 1], points[i], points[i + 1]];
    const r1 = Math.min(r, Math.hypot(b.x - a.x, b.y - a.y) / 2, Math.hypot(c.x - b.x, c.y - b.y) / 2);
    const toward = (p: Point, q: Point, len: number) => {
      const l = Math.hypot(q.x - p.x, q.y - p.y) || 1;
      return { x: p.x + ((q.x - p.x) * len) / l, y: p.y + ((q.y - p.y) * len) / l };
    };
    const p1 = toward(b, a, r1);
    const p2 = toward(b, c, r1);
    d += ` L ${p1.x} ${p1.y} Q ${b.x} ${b.y} ${p2.x} ${p2.y}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}
