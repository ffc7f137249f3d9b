import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeTarget } from '../kernel/change-events';
import type { ChangeFile } from '../kernel/files/file-watching-change-events';

/**
 * Where the file stores keep what a resource shows, for hearing other processes' changes (FileWatchingChangeEvents):
 * a session's append-only log (`sessions/<id>/events.ndjson`, see FileSessionStore: every change appends to it) and a
 * project's task graph (`projects/<id>/task_graph.json`, see FileTaskGraphStore: every change replaces it), a graph
 * run's record (`graph-runs/<tool>/<start-ms>-<run-id>.json`, see FileGraphRunStore: every save replaces it). The
 * cross-process e2e tests (tests/e2e/resource-notifications.test.ts, graph-run-resources.test.ts) fail if the stores
 * move them.
 */
export function dataDirChangeFiles(dataDir: string): (target: ChangeTarget) => ChangeFile | undefined {
  const runs = new RunRecordFiles(path.join(dataDir, 'graph-runs'));
  return (t) => {
    if (t.kind === 'graph-run') return runs.find(t.id);
    if (t.kind === 'session' && /^[0-9a-f]{16}$/.test(t.id)) return { dir: path.join(dataDir, 'sessions', t.id), file: 'events.ndjson' };
    const project = t.project ?? t.id;
    if (t.kind === 'tasks' && /^[a-z0-9][a-z0-9-]*$/.test(project)) return { dir: path.join(dataDir, 'projects', project), file: 'task_graph.json' };
    // Every knowledge write changes the graph file (an append, or a rewrite renamed into place).
    if (t.kind === 'knowledge' && /^[a-z0-9][a-z0-9-]*$/.test(project)) return { dir: path.join(dataDir, 'projects', project), file: 'knowledge_graph.ndjson' };
    return undefined;
  };
}

/** Run records remembered by id (a record's name never changes: its run's start and id). */
const REMEMBERED_RUNS = 1_000;

/**
 * Where a run's record is: its name holds the run's start time, which a URI does not, so the tool folders are listed
 * once per run (a run not recorded yet is looked for again next time).
 */
class RunRecordFiles {
  private readonly found = new Map<string, ChangeFile>();
  constructor(private readonly root: string) {}

  find(runId: string): ChangeFile | undefined {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(runId)) return undefined;
    const known = this.found.get(runId);
    if (known) return known;
    const suffix = `-${runId}.json`;
    for (const tool of list(this.root)) {
      const dir = path.join(this.root, tool);
      const file = list(dir).find((n) => n.endsWith(suffix) && /^\d{13}-/.test(n));
      if (!file) continue;
      const place = { dir, file };
      this.found.set(runId, place);
      if (this.found.size > REMEMBERED_RUNS) this.found.delete(this.found.keys().next().value!);
      return place;
    }
    return undefined;
  }
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
