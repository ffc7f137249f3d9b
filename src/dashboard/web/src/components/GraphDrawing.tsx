import { memo, useEffect, useState } from 'react';
import { ReactFlow, Background, Controls, Handle, Position, MarkerType, type Edge, type Node, type NodeProps } from '@xyflow/react';
import { elkLayout, type RoutedLayout } from '../elk-layout';
import { jsonLogicText } from '../json-logic-text';
import { RoutedEdgeView, type RoutedEdgeData } from './RoutedEdgeView';

export interface DrawnNode {
  id: string;
  type: string;
  detail?: string;
}
export interface DrawnEdge {
  source: string;
  target: string;
  label?: string;
  /** A switch condition's JSON Logic rule (the label is its short JSON). */
  rule?: unknown;
}

const TYPE_COLOUR: Record<string, { bg: string; border: string; fg: string }> = {
  entry: { bg: '#e7f1ff', border: '#4c8fe0', fg: '#0b4f9c' },
  exit: { bg: '#e3f6e8', border: '#40a861', fg: '#1b6b35' },
  mcp: { bg: '#fff4d6', border: '#e0a800', fg: '#7a5200' },
  transform: { bg: '#f1e8ff', border: '#9b6ddc', fg: '#5a2ca0' },
  switch: { bg: '#ffe9d9', border: '#f08c3c', fg: '#8a3b00' },
};

const GraphNode = memo(function GraphNode({ data, selected }: NodeProps) {
  const d = data as { id: string; type: string; detail?: string; highlight?: boolean; highlightClass?: string; marked?: boolean };
  const c = TYPE_COLOUR[d.type] ?? TYPE_COLOUR.transform;
  return (
    <div className={`graph-node${selected || d.highlight ? ' selected' : ''}${d.highlight && d.highlightClass ? ` ${d.highlightClass}` : ''}${d.marked ? ' breakpoint' : ''}`} data-node={d.id} style={{ background: c.bg, borderColor: c.border, color: c.fg }}>
      {d.marked ? <span className="breakpoint-dot" title="breakpoint" aria-label="breakpoint" /> : null}
      <Handle type="target" position={Position.Top} id="t" isConnectable={false} />
      <Handle type="target" position={Position.Right} id="rt" isConnectable={false} style={{ top: '30%' }} />
      <div className="graph-node-head"><span className="task-title">{d.id}</span><span className="node-type">{d.type}</span></div>
      {d.detail ? <div className="graph-node-detail" title={d.detail}>{d.detail}</div> : null}
      <Handle type="source" position={Position.Bottom} id="b" isConnectable={false} />
      <Handle type="source" position={Position.Right} id="rs" isConnectable={false} style={{ top: '70%' }} />
    </div>
  );
});
const nodeTypes = { g: GraphNode };
const edgeTypes = { routed: RoutedEdgeView };
const NODE_W = 240;
const NODE_H = 62;
/** Edge labels: one line of 11 px monospace, at most 48 characters wide (the full text on hover). */
const LABEL_CHAR_W = 6.7;
const LABEL_MAX_CHARS = 48;
const MAX_CANVAS_H = 720;

/** The nodes in the order a run meets them (breadth first from the entry), the others after: ELK's model order. */
function flowOrder(nodes: readonly DrawnNode[], edges: readonly DrawnEdge[]): DrawnNode[] {
  const next = new Map<string, string[]>();
  for (const e of edges) (next.get(e.source) ?? next.set(e.source, []).get(e.source)!).push(e.target);
  const order: string[] = nodes.filter((n) => n.type === 'entry').map((n) => n.id);
  const seen = new Set(order);
  for (let i = 0; i < order.length; i++) {
    for (const t of next.get(order[i]) ?? []) {
      if (seen.has(t)) continue;
      seen.add(t);
      order.push(t);
    }
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return [...order.filter((id) => byId.has(id)).map((id) => byId.get(id)!), ...nodes.filter((n) => !seen.has(n.id))];
}

/**
 * Where there is no ELK (an MCP Apps view in a frame whose CSP allows no worker: elk-engine-inline.ts): the nodes in
 * rows by their distance from the entry, edges drawn straight by React Flow.
 */
function rowLayout(order: readonly DrawnNode[], edges: readonly DrawnEdge[]): RoutedLayout {
  const depth = new Map<string, number>(order.filter((n) => n.type === 'entry').map((n) => [n.id, 0]));
  for (const n of order) {
    const d = depth.get(n.id) ?? 0;
    depth.set(n.id, d);
    for (const e of edges) if (e.source === n.id && !depth.has(e.target)) depth.set(e.target, d + 1);
  }
  const rows: string[][] = [];
  for (const n of order) (rows[depth.get(n.id)!] ??= []).push(n.id);
  const pos = new Map<string, { x: number; y: number }>();
  rows.forEach((ids, r) => ids?.forEach((id, c) => pos.set(id, { x: 16 + c * (NODE_W + 40), y: 16 + r * (NODE_H + 56) })));
  const width = 32 + Math.max(1, ...rows.map((ids) => ids?.length ?? 0)) * (NODE_W + 40);
  return { pos, edges: new Map(), width, height: 32 + rows.length * (NODE_H + 56) };
}

/**
 * A graph tool drawn from its file, top to bottom: node types as text and colour, switch conditions on their edges as
 * readable conditions (`count < n`, `default` for the fallback), every edge — loops back up included — routed by ELK
 * around the nodes, its label beside it. `marked` nodes carry a breakpoint marker (the debugger's); the `highlight`ed
 * node gets `highlightClass` too (the debugger's `paused-at`).
 */
export function GraphDrawing({ nodes, edges, highlight, highlightClass, marked, onSelect, selectable = true }: { nodes: DrawnNode[]; edges: DrawnEdge[]; highlight?: string; highlightClass?: string; marked?: ReadonlySet<string>; onSelect?: (id: string) => void; selectable?: boolean }) {
  const [lay, setLay] = useState<RoutedLayout>();
  const [error, setError] = useState<string>();
  const texts = edges.map((e) => (e.rule !== undefined ? jsonLogicText(e.rule) : e.label));
  const key = JSON.stringify([nodes.map((n) => n.id), edges]);
  useEffect(() => {
    let live = true;
    const order = flowOrder(nodes, edges);
    elkLayout(
      order.map((n) => ({ id: n.id, width: NODE_W, height: NODE_H })),
      edges.map((e, i) => ({
        id: `e${i}`,
        source: e.source,
        target: e.target,
        ...(texts[i] ? { label: { text: texts[i]!, width: Math.min(texts[i]!.length, LABEL_MAX_CHARS) * LABEL_CHAR_W + 6, height: 16 } } : {}),
      })),
      'DOWN',
      { layers: 56, nodes: 40 },
      // A loop is drawn as the edge back up: the cycle is broken where a depth-first walk from the entry meets it.
      { 'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST' },
    )
      .catch(() => rowLayout(order, edges))
      .then((l) => live && setLay(l))
      .catch((e: Error) => live && setError(`layout failed: ${e.message}`));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  if (error) return <div className="error" role="alert">{error}</div>;
  if (!lay) return <div className="graph-canvas muted" data-testid="graph-drawing">Laying out…</div>;
  const rfNodes: Node[] = nodes.map((n) => ({
    id: n.id,
    type: 'g',
    position: lay.pos.get(n.id) ?? { x: 0, y: 0 },
    data: { ...n, highlight: n.id === highlight, ...(highlightClass ? { highlightClass } : {}), marked: marked?.has(n.id) === true },
    draggable: false,
    width: NODE_W,
    height: NODE_H,
  }));
  const rfEdges: Edge[] = edges.map((e, i) => {
    const route = lay.edges.get(`e${i}`);
    return {
      id: `${e.source}-${e.target}-${i}`,
      source: e.source,
      target: e.target,
      ...(route ? { type: 'routed', data: { route, ...(texts[i] ? { text: texts[i] } : {}) } satisfies RoutedEdgeData } : { label: texts[i] }),
      markerEnd: { type: MarkerType.ArrowClosed, color: '#8a94a6' },
      style: { stroke: '#8a94a6' },
    };
  });
  return (
    // As tall as the drawing at full size (within limits): a tall graph is scrolled at reading size, not shrunk.
    <div className="graph-canvas" data-testid="graph-drawing" style={{ height: Math.round(Math.min(Math.max(260, lay.height + 24), MAX_CANVAS_H)) }}>
      <ReactFlow nodes={rfNodes} edges={rfEdges} nodeTypes={nodeTypes} edgeTypes={edgeTypes} fitView fitViewOptions={{ maxZoom: 1, minZoom: 0.85, padding: 0.04 }} panOnScroll nodesConnectable={false} nodesDraggable={false} elementsSelectable={selectable} proOptions={{ hideAttribution: true }} onNodeClick={(_, n) => onSelect?.(n.id)}>
        <Background gap={24} color="#eef0f4" />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
