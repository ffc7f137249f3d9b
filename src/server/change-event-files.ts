import * as path from 'node:path';
import type { ChangeTarget } from '../kernel/change-events';
import type { ChangeFile } from '../kernel/files/file-watching-change-events';

/**
 * Where the file stores keep what a resource shows, for hearing other processes' changes (FileWatchingChangeEvents):
 * a session's append-only log (`sessions/<id>/events.ndjson`, see FileSessionStore: every change appends to it) and a
 * project's task graph (`projects/<id>/task_graph.json`, see FileTaskGraphStore: every change replaces it). The
 * cross-process e2e test (tests/e2e/resource-notifications.test.ts) fails if the stores move them.
 */
export function dataDirChangeFiles(dataDir: string): (target: ChangeTarget) => ChangeFile | undefined {
  return (t) => {
    if (t.kind === 'session' && /^[0-9a-f]{16}$/.test(t.id)) return { dir: path.join(dataDir, 'sessions', t.id), file: 'events.ndjson' };
    const project = t.project ?? t.id;
    if (t.kind === 'tasks' && /^[a-z0-9][a-z0-9-]*$/.test(project)) return { dir: path.join(dataDir, 'projects', project), file: 'task_graph.json' };
    // Every knowledge write changes the graph file (an append, or a rewrite renamed into place).
    if (t.kind === 'knowledge' && /^[a-z0-9][a-z0-9-]*$/.test(project)) return { dir: path.join(dataDir, 'projects', project), file: 'knowledge_graph.ndjson' };
    return undefined;
  };
}
