import { memo, useEffect, useRef, useState } from 'react';
import { ReactFlow, Background, Controls, Handle, Position, MarkerType, type Edge, type Node, type NodeProps, type ReactFlowInstance } from '@xyflow/react';
import { elkLayout, retryable, type RoutedLayout } from '../elk-layout';
import { jsonLogicText } from '../json-logic-text';
import { RoutedEdgeView, type RoutedEdgeData } from './RoutedEdgeView';
import { LayoutNotice } from './common';
import { topMargin } from '../flow-controls';

export interface DrawnNode {
  id: string;
  type: string;
  detail?: string;
}
/**
 * The path a run took over the drawing (graph_inspect's `_meta["workgraph/runGraph"]` for the MCP Apps view): how
 * often each node ran and each edge was taken. Nodes and edges it names are marked, the others dimmed.
 */
export interface DrawnPath {
  visits: Record<string, number>;
  traversals: ReadonlyArray<{ source: string; target: string; count: number }>;
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
  const d = data as { id: string; type: string; detail?: string; highlight?: boolean; highlightClass?: string; marked?: boolean; visits?: number; w: number };
  const c = TYPE_COLOUR[d.type] ?? TYPE_COLOUR.transform;
  const path = d.visits === undefined ? '' : d.visits > 0 ? ' on-path' : ' off-path';
  return (
    <div className={`graph-node${selected || d.highlight ? ' selected' : ''}${d.highlight && d.highlightClass ? ` ${d.highlightClass}` : ''}${d.marked ? ' breakpoint' : ''}${path}`} data-node={d.id} style={{ width: d.w, background: c.bg, borderColor: c.border, color: c.fg }}>
      {d.marked ? <span className="breakpoint-dot" title="breakpoint" aria-label="breakpoint" /> : null}
      <Handle type="target" position={Position.Top} id="t" isConnectable={false} />
      <Handle type="target" position={Position.Right} id="rt" isConnectable={false} style={{ top: '30%' }} />
      <div className="graph-node-head"><span className="task-title" title={d.id}>{d.id}</span><span className="node-type">{d.type}</span></div>
      {d.detail || d.visits ? (
        <div className="graph-node-foot">
          <span className="graph-node-detail" title={d.detail}>{d.detail}</span>
          {d.visits ? <span className="visits" data-testid="node-visits" title={`ran ${d.visits} time${d.visits === 1 ? '' : 's'} in this run`}>{d.visits}×</span> : null}
        </div>
      ) : null}
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
/**
 * A narrow screen or frame (an MCP Apps view inline at 400 px): narrower nodes and labels, so a graph two or three
 * nodes wide is drawn at reading size without being cut at both sides.
 */
const NARROW = '(max-width: 560px)';
const NARROW_NODE_W = 176;
const NARROW_LABEL_MAX_CHARS = 26;
/** The first screen's zoom stays within these: text at reading size; what does not fit is scrolled to. */
const MIN_ZOOM = 0.85;
const MARGIN = 8;

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const m = window.matchMedia(NARROW);
    const on = () => setNarrow(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return narrow;
}

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
function rowLayout(order: readonly DrawnNode[], edges: readonly DrawnEdge[], nodeW: number): RoutedLayout {
  const depth = new Map<string, number>(order.filter((n) => n.type === 'entry').map((n) => [n.id, 0]));
  for (const n of order) {
    const d = depth.get(n.id) ?? 0;
    depth.set(n.id, d);
    for (const e of edges) if (e.source === n.id && !depth.has(e.target)) depth.set(e.target, d + 1);
  }
  const rows: string[][] = [];
  for (const n of order) (rows[depth.get(n.id)!] ??= []).push(n.id);
  const pos = new Map<string, { x: number; y: number }>();
  rows.forEach((ids, r) => ids?.forEach((id, c) => pos.set(id, { x: 16 + c * (nodeW + 40), y: 16 + r * (NODE_H + 56) })));
  const width = 32 + Math.max(1, ...rows.map((ids) => ids?.length ?? 0)) * (nodeW + 40);
  return { pos, edges: new Map(), width, height: 32 + rows.length * (NODE_H + 56) };
}

/**
 * A graph tool drawn from its file, top to bottom: node types as text and colour, switch conditions on their edges as
 * readable conditions (`count < n`, `default` for the fallback), every edge — loops back up included — routed by ELK
 * around the nodes, its label beside it. `marked` nodes carry a breakpoint marker (the debugger's); the `highlight`ed
 * node gets `highlightClass` too (the debugger's `paused-at`).
 */
export function GraphDrawing({ nodes, edges, highlight, highlightClass, marked, path, onSelect, selectable = true }: { nodes: DrawnNode[]; edges: DrawnEdge[]; highlight?: string; highlightClass?: string; marked?: ReadonlySet<string>; path?: DrawnPath; onSelect?: (id: string) => void; selectable?: boolean }) {
  const [lay, setLay] = useState<RoutedLayout>();
  const [error, setError] = useState<string>();
  const [withoutElk, setWithoutElk] = useState<{ reason: string; retryable: boolean }>();
  // The person's Retry of a layout ELK could not make (its script's reads through the host failed).
  const [attempt, setAttempt] = useState(0);
  const narrow = useNarrow();
  const nodeW = narrow ? NARROW_NODE_W : NODE_W;
  const labelMax = narrow ? NARROW_LABEL_MAX_CHARS : LABEL_MAX_CHARS;
  const box = useRef<HTMLDivElement>(null);
  const texts = edges.map((e) => (e.rule !== undefined ? jsonLogicText(e.rule) : e.label));
  const key = JSON.stringify([nodes.map((n) => n.id), edges, narrow]);
  useEffect(() => {
    let live = true;
    const order = flowOrder(nodes, edges);
    elkLayout(
      order.map((n) => ({ id: n.id, width: nodeW, height: NODE_H })),
      edges.map((e, i) => ({
        id: `e${i}`,
        source: e.source,
        target: e.target,
        ...(texts[i] ? { label: { text: texts[i]!, width: Math.min(texts[i]!.length, labelMax) * LABEL_CHAR_W + 6, height: 16 } } : {}),
      })),
      'DOWN',
      { layers: 56, nodes: narrow ? 24 : 40 },
      // A loop is drawn as the edge back up: the cycle is broken where a depth-first walk from the entry meets it.
      { 'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST' },
    )
      .then(
        (l) => {
          if (live) setWithoutElk(undefined);
          return l;
        },
        (e: Error) => {
          if (live) setWithoutElk({ reason: e.message || 'it could not be started', retryable: retryable(e) });
          return rowLayout(order, edges, nodeW);
        },
      )
      .then((l) => live && setLay(l))
      .catch((e: Error) => live && setError(`layout failed: ${e.message}`));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, attempt]);
  if (error) return <div className="error" role="alert">{error}</div>;
  if (!lay) return <div className="graph-canvas muted" data-testid="graph-drawing">Laying out…</div>;
  const rfNodes: Node[] = nodes.map((n) => ({
    id: n.id,
    type: 'g',
    position: lay.pos.get(n.id) ?? { x: 0, y: 0 },
    data: { ...n, w: nodeW, highlight: n.id === highlight, ...(highlightClass ? { highlightClass } : {}), marked: marked?.has(n.id) === true, ...(path ? { visits: path.visits[n.id] ?? 0 } : {}) },
    draggable: false,
    width: nodeW,
    height: NODE_H,
  }));
  const taken = new Map((path?.traversals ?? []).map((t) => [`${t.source}\u0000${t.target}`, t.count]));
  const rfEdges: Edge[] = edges.map((e, i) => {
    const route = lay.edges.get(`e${i}`);
    const count = path ? (taken.get(`${e.source}\u0000${e.target}`) ?? 0) : undefined;
    const stroke = count ? '#2563c9' : '#8a94a6';
    return {
      id: `${e.source}-${e.target}-${i}`,
      source: e.source,
      target: e.target,
      ...(route ? { type: 'routed', data: { route, ...(texts[i] ? { text: texts[i] } : {}) } satisfies RoutedEdgeData } : { label: texts[i] }),
      markerEnd: { type: MarkerType.ArrowClosed, color: stroke },
      style: count ? { stroke, strokeWidth: 2.5 } : { stroke, ...(count === 0 ? { opacity: 0.45 } : {}) },
      ...(count === undefined ? {} : { className: count ? 'on-path' : 'off-path' }),
    };
  });
  const canvasH = Math.round(Math.min(Math.max(260, lay.height + 24), MAX_CANVAS_H));
  // The first screen: the whole drawing at up to 100 %, else at reading size (MIN_ZOOM) — centred where it fits, from
  // its top (the entry) and its left where it does not, the rest scrolled to — never cut at both ends.
  const place = (rf: ReactFlowInstance) => {
    const w = box.current?.clientWidth ?? 800;
    const zoom = Math.min(1, Math.max(MIN_ZOOM, Math.min((w - 2 * MARGIN) / lay.width, (canvasH - 2 * MARGIN) / lay.height)));
    const x = lay.width * zoom + 2 * MARGIN <= w ? (w - lay.width * zoom) / 2 : MARGIN;
    // Below the zoom controls where a narrow frame puts them at the top (flow-controls.ts).
    const top = topMargin(box.current, MARGIN);
    const y = lay.height * zoom + top + MARGIN <= canvasH ? Math.max(top, (canvasH - lay.height * zoom) / 2) : top;
    void rf.setViewport({ x, y, zoom });
  };
  return (
    <>
      {withoutElk ? <LayoutNotice key={attempt} reason={withoutElk.reason} drawn="nodes in rows, edges straight" onRetry={withoutElk.retryable ? () => setAttempt((a) => a + 1) : undefined} /> : null}
      {/* As tall as the drawing at full size (within limits): a tall graph is scrolled at reading size, not shrunk. */}
      <div className="graph-canvas" data-testid="graph-drawing" ref={box} style={{ height: canvasH }}>
        <ReactFlow nodes={rfNodes} edges={rfEdges} nodeTypes={nodeTypes} edgeTypes={edgeTypes} onInit={place} minZoom={0.3} panOnScroll nodesConnectable={false} nodesDraggable={false} elementsSelectable={selectable} proOptions={{ hideAttribution: true }} onNodeClick={(_, n) => onSelect?.(n.id)}>
          <Background gap={24} color="#eef0f4" />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
    </>
  );
}
