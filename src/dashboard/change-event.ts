/**
 * What the dashboard streams to browsers: one event per store change, naming what changed so a page re-reads only
 * that (the shape of the kernel's change-event port: `{kind, project?, id?, at}`).
 */
export interface ChangeEvent {
  kind: 'session' | 'tasks' | 'knowledge' | 'graph-run' | 'graph';
  /** The project id (tasks, knowledge) or the tool name (graph-run). */
  project?: string;
  /** The session id, run id or file name, when known. */
  id?: string;
  /** ISO time the change was seen. */
  at: string;
}

/** A source of change events (the data-dir watcher in file mode; a database's notifications later). */
export interface ChangeEventSource {
  subscribe(listener: (event: ChangeEvent) => void): () => void;
  close(): Promise<void>;
}
