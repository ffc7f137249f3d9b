import { memo } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { STATUS_STYLE, statusLabel } from '../status';

export interface TaskNodeData extends Record<string, unknown> {
  title: string;
  taskId: string;
  status: string;
  attempt: string;
  match: boolean;
}

/** One task on the DAG: title, id and its status as text, on the status colour. */
export const TaskNodeView = memo(function TaskNodeView({ data, selected }: NodeProps) {
  const d = data as TaskNodeData;
  const s = STATUS_STYLE[d.status] ?? STATUS_STYLE.PENDING;
  return (
    <div
      className={`task-node${selected ? ' selected' : ''}${d.match ? ' match' : ''}`}
      data-task={d.taskId}
      data-status={d.status}
      style={{ background: s.bg, borderColor: s.border, color: s.fg }}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="task-title" title={d.title}>{d.title}</div>
      <div className="task-meta">
        <span className="task-id">{d.taskId}</span>
        <span className="task-status" style={{ color: s.fg }}>{statusLabel(d.status)}</span>
      </div>
      {d.attempt ? <div className="task-attempt">{d.attempt}</div> : null}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

export interface LayerNodeData extends Record<string, unknown> {
  layer: number;
  count: number;
  counts: Record<string, number>;
}

/** A collapsed layer: how many tasks it holds, by status (as text). */
export const LayerNodeView = memo(function LayerNodeView({ data }: NodeProps) {
  const d = data as LayerNodeData;
  return (
    <div className="layer-node" data-layer={d.layer}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="task-title">Layer {d.layer + 1} · {d.count} tasks (collapsed)</div>
      <div className="task-meta small">
        {Object.entries(d.counts)
          .map(([k, v]) => `${v} ${statusLabel(k)}`)
          .join(' · ')}
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});
