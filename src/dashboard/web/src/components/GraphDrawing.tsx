import { memo, useMemo } from 'react';
import { ReactFlow, Background, Controls, Handle, Position, MarkerType, type Edge, type Node, type NodeProps } from '@xyflow/react';
import dagre from '@dagrejs/dagre';

export interface DrawnNode {
  id: string;
  type: string;
  detail?: string;
}
export interface DrawnEdge {
  source: string;
  target: string;
  label?: string;
}

const TYPE_COLOUR: Record<string, { bg: string; border: string; fg: string }> = {
  entry: { bg: '#e7f1ff', border: '#4c8fe0', fg: '#0b4f9c' },
  exit: { bg: '#e3f6e8', border: '#40a861', fg: '#1b6b35' },
  mcp: { bg: '#fff4d6', border: '#e0a800', fg: '#7a5200' },
  transform: { bg: '#f1e8ff', border: '#9b6ddc', fg: '#5a2ca0' },
  switch: { bg: '#ffe9d9', border: '#f08c3c', fg: '#8a3b00' },
};

const GraphNode = memo(function GraphNode({ data, selected }: NodeProps) {
  const d = data as { id: string; type: string; detail?: string; highlight?: boolean };
  const c = TYPE_COLOUR[d.type] ?? TYPE_COLOUR.transform;
  return (
    <div className={`graph-node${selected || d.highlight ? ' selected' : ''}`} data-node={d.id} style={{ background: c.bg, borderColor: c.border, color: c.fg }}>
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
const NODE_W = 240;
const NODE_H = 62;

/** A graph tool drawn from its file: node types as text and colour, switch conditions on the edges. */
export function GraphDrawing({ nodes, edges, highlight, onSelect }: { nodes: DrawnNode[]; edges: DrawnEdge[]; highlight?: string; onSelect?: (id: string) => void }) {
  const positioned = useMemo(() => {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: 'TB', ranksep: 70, nodesep: 40 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
    for (const e of edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target, e.label ? { label: e.label, width: Math.min(240, e.label.length * 7), height: 20 } : {});
    dagre.layout(g);
    return new Map(nodes.map((n) => [n.id, g.node(n.id)]));
  }, [nodes, edges]);
  const rfNodes: Node[] = nodes.map((n) => ({
    id: n.id,
    type: 'g',
    position: { x: positioned.get(n.id)!.x - NODE_W / 2, y: positioned.get(n.id)!.y - NODE_H / 2 },
    data: { ...n, highlight: n.id === highlight },
    draggable: false,
  }));
  // An edge back up the drawing (a loop) leaves and enters on the right side, so it never hides a forward edge.
  const isBack = (e: DrawnEdge) => (positioned.get(e.target)?.y ?? 0) <= (positioned.get(e.source)?.y ?? 0);
  const rfEdges: Edge[] = edges.map((e, i) => ({
    id: `${e.source}-${e.target}-${i}`,
    source: e.source,
    target: e.target,
    sourceHandle: isBack(e) ? 'rs' : 'b',
    targetHandle: isBack(e) ? 'rt' : 't',
    label: e.label,
    labelStyle: { fontSize: 11, fill: '#3b4252' },
    labelBgStyle: { fill: '#ffffff' },
    markerEnd: { type: MarkerType.ArrowClosed, color: '#8a94a6' },
    style: { stroke: '#8a94a6' },
  }));
  return (
    <div className="graph-canvas" data-testid="graph-drawing">
      <ReactFlow nodes={rfNodes} edges={rfEdges} nodeTypes={nodeTypes} fitView fitViewOptions={{ maxZoom: 1, padding: 0.1 }} nodesConnectable={false} nodesDraggable={false} proOptions={{ hideAttribution: true }} onNodeClick={(_, n) => onSelect?.(n.id)}>
        <Background gap={24} color="#eef0f4" />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
