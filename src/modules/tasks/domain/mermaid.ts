import type { TaskGraph } from './task-graph';
import { ALL_TASK_STATUSES, type TaskStatus } from './task-status';

/** One Mermaid class per status: fill, stroke and text colours. */
const STATUS_STYLE: Record<TaskStatus, string> = {
  PENDING: 'fill:#eeeeee,stroke:#9e9e9e,color:#424242',
  READY: 'fill:#e3f2fd,stroke:#1e88e5,color:#0d47a1',
  IN_PROGRESS: 'fill:#fff8e1,stroke:#f9a825,color:#5d4037',
  VALIDATING: 'fill:#ede7f6,stroke:#7e57c2,color:#311b92',
  RETRYING: 'fill:#fff3e0,stroke:#ef6c00,color:#bf360c',
  COMPLETED: 'fill:#e8f5e9,stroke:#43a047,color:#1b5e20',
  FAILED: 'fill:#ffebee,stroke:#e53935,color:#b71c1c',
};

/**
 * A Mermaid `flowchart TD` of the DAG: one box per node labelled `id: title` and its status, an arrow from each
 * dependency to its dependent, and one `classDef` per status. Node ids become `t0, t1, ...` in the chart (task ids
 * may hold characters Mermaid does not accept as ids); labels are escaped with Mermaid entity codes.
 */
export function renderMermaid(graph: TaskGraph): string {
  const key = new Map(graph.nodes.map((n, i) => [n.id, `t${i}`]));
  const lines = ['flowchart TD'];
  for (const n of graph.nodes) {
    lines.push(`  ${key.get(n.id)}["${escapeLabel(`${n.id}: ${n.title}`)}<br/>${n.status}"]`);
  }
  for (const n of graph.nodes) {
    for (const d of n.depends_on) lines.push(`  ${key.get(d)} --> ${key.get(n.id)}`);
  }
  for (const s of ALL_TASK_STATUSES) lines.push(`  classDef ${className(s)} ${STATUS_STYLE[s]}`);
  for (const s of ALL_TASK_STATUSES) {
    const members = graph.nodes.filter((n) => n.status === s).map((n) => key.get(n.id));
    if (members.length) lines.push(`  class ${members.join(',')} ${className(s)}`);
  }
  return lines.join('\n');
}

/** The Mermaid class of a status: `in_progress`, `completed`, ... */
export function className(status: TaskStatus): string {
  return status.toLowerCase();
}

function escapeLabel(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '#amp;')
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;');
}
