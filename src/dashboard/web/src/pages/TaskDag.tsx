import { useEffect, useMemo, useRef, useState } from 'react';
import { ReactFlow, ReactFlowProvider, Background, Controls, MiniMap, useReactFlow } from '@xyflow/react';
import { useApi } from '../api';
import { useMeta } from '../meta';
import { layout, layoutWithoutElk, NODE_H, NODE_W, type Layout } from '../layout';
import { flowElements, windowTaskIds, type Viewport } from '../dag-elements';
import { STATUSES, STATUS_STYLE } from '../status';
import { StatusBadge } from '../components/StatusBadge';
import { LayerNodeView, TaskNodeView, type TaskNodeData } from '../components/TaskNodeView';
import { RoutedEdgeView } from '../components/RoutedEdgeView';
import { LayoutNotice, Load } from '../components/common';
import { topMargin } from '../flow-controls';
import { PlanHistory } from '../components/PlanViews';
import { TaskDetails } from '../components/TaskDetails';
import { dashboardTaskSource, TaskSourceContext } from '../components/task-source';
import type { TaskGraphData, TaskNode } from '../types';

const nodeTypes = { task: TaskNodeView, layer: LayerNodeView };
const edgeTypes = { routed: RoutedEdgeView };
/**
 * The zoom the first screen never goes below: task titles (14 px) stay at 11 px or more. The DAG opens fitted to the
 * canvas width at up to 100 %, but never smaller than this; what does not fit is scrolled to (wheel, drag).
 */
const READING_ZOOM = 0.8;
const MARGIN = 12;
const MINIMAP_MIN_NODES = 30;
/**
 * Past this many tasks only those near the viewport (and their direct neighbours, so edges stay drawn) are handed to
 * React Flow: its per-render work then follows what is on screen, not the size of the DAG.
 */
const WINDOW_MIN_NODES = 400;
const INITIAL_VIEWPORT = { x: MARGIN, y: MARGIN, zoom: 0.9 };

export function TaskDag({ project }: { project: string }) {
  const res = useApi<TaskGraphData>(`/projects/${encodeURIComponent(project)}/tasks`, (e) => e.kind === 'tasks' && e.project === project);
  const meta = useMeta();
  const source = useMemo(() => dashboardTaskSource(meta?.allowActions === true), [meta?.allowActions]);
  return (
    <TaskSourceContext.Provider value={source}>
      <Load res={res}>
        {(g) => <DagLayout graph={g} />}
      </Load>
    </TaskSourceContext.Provider>
  );
}

/**
 * Lays the DAG out (in ELK's worker for all but the largest DAGs), again only when its shape changes; `initialSelected`
 * opens a task's details (an MCP Apps view handed one task's result). Inside a TaskSourceContext.
 */
export function DagLayout({ graph, initialSelected }: { graph: TaskGraphData; initialSelected?: string }) {
  // The layout depends only on the DAG's shape: a status change re-colours nodes without moving them.
  const shapeKey = useMemo(() => graph.nodes.map((n) => `${n.id}<${n.depends_on.join(',')}`).join(';'), [graph]);
  // A DAG ELK does not take is laid out linearly in this render (no "Laying out…" render first); ELK's, in its worker.
  const linear = useMemo(() => layoutWithoutElk(graph.nodes.map((n) => ({ id: n.id, deps: n.depends_on }))), [shapeKey]);
  const [lay, setLay] = useState<{ key: string; layout: Layout }>();
  const [error, setError] = useState<string>();
  // The person's Retry of a layout ELK could not make (its script's reads through the host failed).
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (linear) return;
    let live = true;
    layout(graph.nodes.map((n) => ({ id: n.id, deps: n.depends_on })))
      .then((l) => live && setLay({ key: shapeKey, layout: l }))
      .catch((e: Error) => live && setError(`layout failed: ${e.message}`));
    return () => {
      live = false;
    };
  }, [shapeKey, attempt]);
  const drawn = linear ?? lay?.layout;
  if (error && !linear) return <div className="error" role="alert">{error}</div>;
  if (!drawn) return <div className="muted">Laying out {graph.nodes.length} tasks…</div>;
  return (
    <ReactFlowProvider>
      <DagView graph={graph} lay={drawn} initialSelected={initialSelected} attempt={attempt} retryElk={() => setAttempt((a) => a + 1)} />
    </ReactFlowProvider>
  );
}

function DagView({ graph, lay, initialSelected, attempt, retryElk }: { graph: TaskGraphData; lay: Layout; initialSelected?: string; attempt: number; retryElk: () => void }) {
  const flow = useReactFlow();
  const [selected, setSelected] = useState<string | undefined>(initialSelected);
  useEffect(() => {
    if (initialSelected) setSelected(initialSelected);
  }, [initialSelected]);
  const [collapsed, setCollapsed] = useState<Set<number>>(new Set());
  const [query, setQuery] = useState('');
  const [matchIndex, setMatchIndex] = useState(0);
  const byId = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n])), [graph]);

  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q) return [] as TaskNode[];
    return graph.nodes.filter((n) => n.id.toLowerCase().includes(q) || n.title.toLowerCase().includes(q));
  }, [graph, query]);
  const matchSet = useMemo(() => new Set(matches.map((m) => m.id)), [matches]);

  const large = graph.nodes.length > WINDOW_MIN_NODES;
  const [viewport, setViewport] = useState<Viewport>(INITIAL_VIEWPORT);
  const canvasRef = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ w: 1200, h: 800 });
  useEffect(() => {
    const el = canvasRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setSize({ w: el.clientWidth, h: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const frame = useRef(0);
  const onMove = (_: unknown, vp: Viewport) => {
    if (!large) return;
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => setViewport(vp));
  };
  const windowIds = useMemo(() => (large ? windowTaskIds(graph, lay, viewport, size, selected) : null), [large, viewport, size, graph, lay, selected]);
  const { nodes, edges } = useMemo(() => flowElements(graph, lay, byId, { collapsed, matchSet, selected, windowIds }), [graph, lay, collapsed, matchSet, selected, byId, windowIds]);

  // The first screen, and again whenever the canvas changes size (the details panel opens or closes, the window is
  // resized) until the user moves the view: the DAG's width fitted at reading zoom or more, the rest scrolled to.
  const userMoved = useRef(false);
  const placedAt = useRef<Viewport | undefined>(undefined);
  const place = (w: number, h: number) => {
    const zoom = Math.min(1, Math.max(READING_ZOOM, (w - 2 * MARGIN) / Math.max(1, lay.width)));
    const x = lay.width * zoom + 2 * MARGIN <= w ? (w - lay.width * zoom) / 2 : MARGIN;
    // Below the zoom controls where a narrow frame puts them at the top (flow-controls.ts).
    const top = topMargin(canvasRef.current, MARGIN);
    const y = lay.height * zoom + top + MARGIN <= h ? Math.max(top, (h - lay.height * zoom) / 2) : top;
    // The selected task stays on screen when the view is fitted again (the details panel took the room it was in).
    const p = selected ? lay.pos.get(selected) : undefined;
    let left = x;
    if (p && (p.x * zoom + left < MARGIN || (p.x + NODE_W) * zoom + left > w - MARGIN)) left = Math.min(MARGIN, w - MARGIN - (p.x + NODE_W) * zoom);
    placedAt.current = { x: left, y, zoom };
    flow.setViewport({ x: left, y, zoom });
  };
  /** Pans (same zoom) so the task is on screen, for a view the user has moved. */
  const reveal = (id: string, w: number, h: number) => {
    const p = lay.pos.get(id);
    if (!p) return;
    const vp = flow.getViewport();
    const left = p.x * vp.zoom + vp.x;
    const top = p.y * vp.zoom + vp.y;
    let { x, y } = vp;
    if (left < MARGIN || left + NODE_W * vp.zoom > w - MARGIN) x = w / 2 - (p.x + NODE_W / 2) * vp.zoom;
    if (top < MARGIN || top + NODE_H * vp.zoom > h - MARGIN) y = h / 2 - (p.y + NODE_H / 2) * vp.zoom;
    if (x !== vp.x || y !== vp.y) flow.setViewport({ x, y, zoom: vp.zoom }, { duration: 150 });
  };
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const el = canvasRef.current;
      if (!el || !el.clientWidth) return;
      if (!userMoved.current) place(el.clientWidth, el.clientHeight);
      else if (selected) reveal(selected, el.clientWidth, el.clientHeight);
    });
    return () => cancelAnimationFrame(frame);
    // Only a new size or layout re-places the view; selecting a task alone never moves it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [size.w, size.h, lay]);

  const goTo = (i: number) => {
    const m = matches[i];
    if (!m) return;
    setMatchIndex(i);
    const li = lay.layerOf.get(m.id)!;
    if (collapsed.has(li)) setCollapsed((c) => new Set([...c].filter((x) => x !== li)));
    const p = lay.pos.get(m.id)!;
    userMoved.current = true;
    flow.setCenter(p.x + NODE_W / 2, p.y + NODE_H / 2, { zoom: 1, duration: 300 });
    setSelected(m.id);
  };

  /** Collapsing from the layer list brings the layer's summary node (at the top of its column) into view. */
  const toggleFromList = (li: number) => {
    if (!collapsed.has(li)) {
      const first = lay.pos.get(lay.layers[li][0]);
      if (first) flow.setCenter(first.x + NODE_W / 2, 20 + NODE_H / 2, { zoom: flow.getZoom(), duration: 200 });
    }
    toggleLayer(li);
  };

  const toggleLayer = (li: number) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (next.has(li)) next.delete(li);
      else next.add(li);
      return next;
    });

  return (
    <div className="dag-page">
      <div className="dag-head">
        <h1>
          {graph.project_name} <span className="muted small">{graph.project_id}</span>
        </h1>
        <div className="badges" data-testid="counts">
          {STATUSES.filter((s) => graph.counts[s]).map((s) => (
            <StatusBadge key={s} status={s} count={graph.counts[s]} />
          ))}
        </div>
      </div>
      {lay.withoutElk ? <LayoutNotice key={attempt} reason={lay.withoutElk} drawn="edges go from layer to layer, not around the tasks between" onRetry={lay.elkRetryable ? retryElk : undefined} /> : null}
      <div className={`dag-body${selected && byId.has(selected) ? ' details-open' : ''}`}>
        <aside className="dag-side">
          <label className="field">
            <span>Search tasks</span>
            <input
              type="search"
              value={query}
              placeholder="id or title"
              data-testid="task-search"
              onChange={(e) => {
                setQuery(e.target.value);
                setMatchIndex(0);
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') goTo(matches.length ? (matchIndex + (selected === matches[matchIndex]?.id ? 1 : 0)) % matches.length : 0);
              }}
            />
          </label>
          {query ? (
            <div className="small muted" data-testid="match-count">
              {matches.length} match{matches.length === 1 ? '' : 'es'}
              {matches.length ? (
                <button className="link" onClick={() => goTo((matchIndex + 1) % matches.length)}>next ›</button>
              ) : null}
            </div>
          ) : null}
          <details className="recent-changes" open={(graph.history?.length ?? 0) > 0}>
            <summary><h3>Recent changes <span className="muted small">{graph.history?.length ?? 0}</span></h3></summary>
            <PlanHistory changes={graph.history ?? []} testId="plan-history" showNodes />
          </details>
          <h3>Layers <span className="muted small">{lay.layers.length}</span></h3>
          <div className="layer-actions">
            <button
              onClick={() => {
                setCollapsed(new Set(lay.layers.map((_, i) => i).filter((i) => i > 0)));
                // The summary nodes sit at the top of their columns: bring them into view.
                userMoved.current = true;
                flow.setViewport(INITIAL_VIEWPORT, { duration: 200 });
              }}
            >
              Collapse all but first
            </button>
            <button onClick={() => setCollapsed(new Set())}>Expand all</button>
          </div>
          <ul className="layers">
            {lay.layers.map((ids, li) => (
              <li key={li}>
                <label>
                  <input type="checkbox" checked={!collapsed.has(li)} onChange={() => toggleFromList(li)} data-testid={`layer-${li}`} /> Layer {li + 1}
                  <span className="muted small"> {ids.length}</span>
                </label>
              </li>
            ))}
          </ul>
        </aside>
        <div className="dag-canvas" data-testid="dag" ref={canvasRef}>
          <ReactFlow
            defaultViewport={INITIAL_VIEWPORT}
            onMove={onMove}
            onMoveEnd={(_, vp) => {
              // A move the user makes (drag, wheel, pinch, the zoom buttons) ends the automatic fitting; a click that
              // moves nothing does not.
              const p = placedAt.current;
              if (!p || Math.abs(p.x - vp.x) > 1 || Math.abs(p.y - vp.y) > 1 || Math.abs(p.zoom - vp.zoom) > 0.001) userMoved.current = true;
            }}
            panOnScroll
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            onlyRenderVisibleElements
            nodesConnectable={false}
            nodesDraggable={false}
            minZoom={0.05}
            maxZoom={2}
            onNodeClick={(_, n) => {
              if (n.type === 'layer') toggleLayer((n.data as { layer: number }).layer);
              else setSelected(n.id);
            }}
            onPaneClick={() => setSelected(undefined)}
            proOptions={{ hideAttribution: true }}
          >
            <Background gap={24} color="#e6e9ef" />
            <Controls showInteractive={false} />
            {/* A map only where it helps: a DAG too big for one screen (the large ones draw only what is on screen). */}
            {!large && graph.nodes.length > MINIMAP_MIN_NODES ? (
              <MiniMap pannable zoomable nodeColor={(n) => STATUS_STYLE[(n.data as TaskNodeData).status]?.border ?? '#ccc'} />
            ) : null}
          </ReactFlow>
        </div>
        {selected && byId.has(selected) ? (
          <TaskDetails project={graph.project_id} node={byId.get(selected)!} revision={graph.revision} onClose={() => setSelected(undefined)} />
        ) : null}
      </div>
    </div>
  );
}

