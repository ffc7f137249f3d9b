import type { CompiledGraph } from '../engine/compiled-graph';

/** One change of a graph file's tools, the tool given as mcpgraph's tool definition (name, schemas, nodes). */
export type GraphToolChange =
  | { kind: 'add'; tool: Record<string, unknown> }
  | { kind: 'update'; name: string; tool: Record<string, unknown> }
  | { kind: 'delete'; name: string };

/** A graph file after a change was written. */
export interface GraphFileChanged {
  file: string;
  /** The file's new revision. */
  revision: string;
  /** The tools it declares now, in file order. */
  tools: string[];
  /** Warnings of the new file (`file:line:col: message`), as `workgraph validate` prints them. */
  warnings: string[];
}

/**
 * The graph files the authoring tools may change: the files `--graphs` names and the graph files directly inside the
 * folders it names. Each change is checked as `workgraph validate` checks a file before anything is written, and
 * written atomically through the kernel's write path, comments and the other tools kept.
 */
export interface GraphFileEditor {
  /**
   * The real path of the graph file an agent named (absolute, or a loaded file's name as graph_server gives it).
   * @throws NotFoundError when there is no such file; InvalidArgumentsError (field `field`) when it is not one `--graphs` names.
   */
  locate(file: string, field: string): Promise<string>;
  /**
   * Applies `change` to `file` when the file on disk still has `revision`, and writes it.
   * @throws ConflictError when the file changed since; NotFoundError / AlreadyExistsError for the tool named;
   *   InvalidArgumentsError for a file or tool it cannot write; InvalidGraphError with every problem of the new file.
   */
  change(file: string, revision: string, change: GraphToolChange): Promise<GraphFileChanged>;
  /**
   * The graph `file` would be with `tool` added (or replacing the tool of its name), compiled but not written — or,
   * without a file, a graph holding only the tool (with `--mcp-config`'s servers).
   * @throws InvalidGraphError with every problem.
   */
  draft(file: string | undefined, tool: Record<string, unknown>): Promise<CompiledGraph>;
}

/**
 * What serves the graph files as tools: told after a write so the served list changes at once, and asked before a
 * read answers what it serves, so a file another process wrote is answered as it is on disk, not as this process
 * loaded it (its watcher reloads it only after a delay).
 */
export interface GraphFileSync {
  /** Reloads `file` and republishes its tools (tools/list_changed). */
  reload(file: string): Promise<void>;
  /**
   * Brings what is served up to date with the files on disk now: each file's identity checked (a stat), a changed
   * file reloaded and republished, a new one loaded, a deleted one dropped. A file that fails to load keeps its last
   * good version (as on any reload).
   */
  refresh(): Promise<void>;
}
