import type { ChangeEvent, ChangeTarget } from '../kernel/change-events';
import { knowledgeTarget } from './knowledge-resources';
import { graphRunTarget, graphRunUri } from './graph-run-resources';

/**
 * The `workgraph://` resource URIs this server serves, and the change each one names: what resources/read and
 * resources/subscribe (mcp-resources.ts, resource-subscriptions.ts), the views' resource_changes tool and the modern
 * era's listen streams agree on. Pure: patterns and names only.
 */

export const EXPECTED_URIS = 'workgraph://sessions/<id>, workgraph://projects/<id>/tasks, workgraph://knowledge/<project>, workgraph://knowledge/<project>/nodes/<id> or workgraph://graph/runs/<runId>';
const SESSION_URI = /^workgraph:\/\/sessions\/([0-9a-f]{16})$/;
/** A session's timeline from a page on: `workgraph://sessions/<id>?cursor=<nextCursor of the page before>`. */
export const SESSION_PAGE_URI = /^workgraph:\/\/sessions\/([0-9a-f]{16})(?:\?cursor=([^&#\s]+))?$/;
export const TASKS_URI = /^workgraph:\/\/projects\/([a-z0-9][a-z0-9-]*)\/tasks$/;

/**
 * The resource a change event is about, when it is one this server serves (modern era: what a listener names in its
 * `resourceSubscriptions`; a knowledge change is its project's resource).
 */
export function resourceUriOf(e: ChangeEvent, modules: readonly string[]): string | undefined {
  if (e.kind === 'session' && modules.includes('workflow')) return `workgraph://sessions/${e.id}`;
  if (e.kind === 'tasks' && modules.includes('tasks')) return `workgraph://projects/${e.project ?? e.id}/tasks`;
  if (e.kind === 'knowledge' && modules.includes('knowledge')) return `workgraph://knowledge/${e.project ?? e.id}`;
  if (e.kind === 'graph-run' && modules.includes('graph')) return graphRunUri(e.id);
  return undefined;
}

/** The change target a resource URI names, when the modules served serve it. */
export function resourceTargetOf(uri: string, modules: readonly string[]): ChangeTarget | undefined {
  const target = sessionOrTasksTarget(uri);
  if (target) return (target.kind === 'session' ? modules.includes('workflow') : modules.includes('tasks')) ? target : undefined;
  const run = graphRunTarget(uri);
  if (run) return modules.includes('graph') ? run : undefined;
  return modules.includes('knowledge') ? knowledgeTarget(uri) : undefined;
}

/** The change target a session or task-graph URI names. */
export function sessionOrTasksTarget(uri: string): ChangeTarget | undefined {
  const session = SESSION_URI.exec(uri);
  if (session) return { kind: 'session', id: session[1] };
  const tasks = TASKS_URI.exec(uri);
  return tasks ? { kind: 'tasks', project: tasks[1], id: tasks[1] } : undefined;
}
