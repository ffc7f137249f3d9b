import { StorageError } from '../../../kernel/errors';
import { readStoredTaskGraph, type ArchivedAttemptRecord, type TaskGraph } from '../domain';
import type { DocumentCodec } from '../../../kernel/files/locked-document';

/** The graph file's own fields: the lengths of the logs that go with this revision of the graph. */
export interface StoredDocument extends TaskGraph {
  transition_log_bytes?: number;
  history_log_bytes?: number;
}

/** A graph as read under the lock, with what the store needs to write the next revision. */
export interface ReadGraph {
  graph: TaskGraph;
  /** Length of the log that belongs to this revision; undefined for files written before it was recorded. */
  logBytes?: number;
  /** Length of the history that belongs to this revision; undefined before the history existed. */
  historyBytes?: number;
  /** Attempt records an upgrade of an older file moved out of the graph (appended to the log on the next write). */
  archived: ArchivedAttemptRecord[];
  /** The format the file was read in, when older than today's. */
  upgradedFrom?: number;
}

const RECOVER_HINT =
  'to recover, restore the file from a copy or fix it by hand (spec/task-graph.schema.json describes it), or call ' +
  'init_project_graph with replace: true to start the project over (the damaged file is then kept beside it as ' +
  'task_graph.json.damaged-<time>)';

/** The graph file's text: parsed and checked (an older format upgraded in memory), and written back as JSON. */
export const TASK_GRAPH_CODEC: DocumentCodec<ReadGraph, StoredDocument> = {
  parse(text, file) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw damaged(file, `it is not valid JSON (${(e as Error).message}${text.length === 0 ? ', the file is empty' : ''})`);
    }
    const reading = readStoredTaskGraph(doc);
    if (!reading.ok) throw damaged(file, reading.problem);
    const { transition_log_bytes: logBytes, history_log_bytes: historyBytes, ...graph } = reading.graph as StoredDocument;
    return {
      graph,
      logBytes: Number.isInteger(logBytes) ? logBytes : undefined,
      historyBytes: Number.isInteger(historyBytes) ? historyBytes : undefined,
      archived: reading.archived,
      upgradedFrom: reading.upgradedFrom,
    };
  },
  serialize: (doc) => JSON.stringify(doc, null, 2) + '\n',
};

/** Whether `e` is the error of a damaged graph file (one that {@link TASK_GRAPH_CODEC} could not read). */
export function isDamaged(e: unknown): boolean {
  return e instanceof StorageError && e.details.damaged === true;
}

function damaged(file: string, problem: string): StorageError {
  return new StorageError(`task graph file ${file} is damaged: ${problem}; ${RECOVER_HINT}`, { file, damaged: true });
}
