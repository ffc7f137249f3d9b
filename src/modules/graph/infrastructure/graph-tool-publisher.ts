import * as fs from 'node:fs';
import * as path from 'node:path';
import { isWorkgraphError, WorkgraphError, ErrorCodes } from '../../../kernel/errors';
import { actorOf, type CallContext } from '../../../kernel/call-context';
import { describeIssue } from '../domain/graph-issue';
import type { Logger } from '../../../kernel/logger';
import type { GraphToolInfo } from '../application/graph-runner';
import { EXECUTION_ID_META_KEY } from '../../../server/json-rpc-codes';
import { ToolResultWithMeta, type ToolDefinition } from '../../../kernel/tools/tool-definition';
import type { ToolRegistry } from '../../../kernel/tools/tool-registry';
import { expandGraphPaths, type GraphHost } from './graph-host';

/** Options of {@link GraphToolPublisher}, with their defaults. */
export interface GraphToolPublisherOptions {
  /** Watch the graph paths and reload changed files. Default true. */
  watch?: boolean;
  /** Quiet time after the last file event before reloading, in ms. Default 150. */
  debounceMs?: number;
}

/** A file's identity on disk: an atomic write (a rename) changes its inode, any write its mtime or size. */
interface Fingerprint {
  ino: number;
  mtimeMs: number;
  size: number;
}

/**
 * Serves the tools of the graph files named by `--graphs` / WORKGRAPH_GRAPHS_PATH as MCP tools: loads every file
 * (a bad file is logged and skipped, never hiding the others), publishes each file's tools in the tool registry under
 * the file's path, and — watching the paths — reloads a changed or added file, keeping the last good graph when an
 * edit is broken, and drops the tools of a deleted file. The registry tells the client
 * (`notifications/tools/list_changed`).
 */
export class GraphToolPublisher {
  private readonly watchers: fs.FSWatcher[] = [];
  private readonly fingerprints = new Map<string, Fingerprint>();
  /** Graph-named entries of the folders that are not readable files (dangling symlink, folder), each logged once. */
  private skipped = new Set<string>();
  /** The `--graphs` paths that could not be read at the last sync: each is warned about once, until it can be read. */
  private unreadablePaths = new Set<string>();
  private timer?: NodeJS.Timeout;
  private reloading: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly host: GraphHost,
    private readonly registry: ToolRegistry,
    private readonly logger: Logger,
    private readonly paths: readonly string[],
    private readonly options: GraphToolPublisherOptions = {},
  ) {}

  /** Loads and publishes every graph file, then starts watching. */
  async start(): Promise<void> {
    await this.sync();
    if (this.options.watch ?? true) this.startWatching();
  }

  /** Waits for a reload in progress (tests). */
  idle(): Promise<void> {
    return this.reloading;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.splice(0)) w.close();
  }

  /**
   * Reloads `file` now (after the authoring tools wrote it) and republishes its tools, whatever its size and mtime
   * say; resolves once the served list changed.
   */
  reload(file: string): Promise<void> {
    for (const known of [...this.fingerprints.keys()]) {
      if (known === file || realpathOr(known) === file) this.fingerprints.delete(known);
    }
    return this.sync();
  }

  /**
   * Brings the served tools up to date with the disk now, before a read answers them (graph_server, graph_tool_get):
   * the watcher hears another process's write only after its debounce. A stat per file; only changed files are read.
   */
  refresh(): Promise<void> {
    return this.sync();
  }

  /** Re-reads the paths: loads new and changed files, unloads deleted ones, republishes what changed. */
  sync(): Promise<void> {
    this.reloading = this.reloading.then(() => this.doSync()).catch((e) => {
      this.logger.error('graph reload failed', { err: (e as Error).message });
    });
    return this.reloading;
  }

  private async doSync(): Promise<void> {
    const files = await this.currentFiles();
    const current = new Map<string, Fingerprint>();
    const skipped = new Set<string>();
    for (const file of files) {
      const stat = await fs.promises.stat(file).catch((e: NodeJS.ErrnoException) => e);
      if (stat instanceof fs.Stats && stat.isFile()) {
        current.set(file, { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size });
        continue;
      }
      // Never silently: a `*.yaml` that is a dangling symlink or a folder would otherwise just be missing.
      skipped.add(file);
      if (this.skipped.has(file)) continue;
      const why = stat instanceof fs.Stats ? (stat.isDirectory() ? 'is a folder, not a file' : 'is not a regular file') : `cannot be read (${stat.code ?? stat.message})`;
      this.logger.warn(`graph file skipped: ${file} ${why}`, { file });
    }
    this.skipped = skipped;
    const changed = [...current].filter(([f, fp]) => {
      const old = this.fingerprints.get(f);
      return !old || old.ino !== fp.ino || old.mtimeMs !== fp.mtimeMs || old.size !== fp.size;
    });
    const removed = [...this.fingerprints.keys()].filter((f) => !current.has(f));

    for (const file of removed) {
      this.fingerprints.delete(file);
      if (this.host.unloadFile(file)) this.logger.info('graph file removed; its tools are no longer served', { file });
      this.registry.removeOrigin(file);
    }
    if (changed.length === 0) return;
    const { loaded, failed } = await this.host.reloadFiles(changed.map(([f]) => f));
    for (const [file, fp] of changed) this.fingerprints.set(file, fp);
    for (const f of failed) {
      const kept = this.host.graphs().some((g) => g.config.file === f.file);
      this.logger.warn(`graph file not loaded: ${f.error.message}${kept ? ' (its last good version is still served)' : ''}`, {
        file: f.file,
      });
    }
    this.publish(loaded);
  }

  /** Puts each loaded file's tools in the registry (replacing that file's earlier tools). */
  private publish(files: readonly string[]): void {
    const byFile = new Map<string, GraphToolInfo[]>();
    for (const t of this.host.listTools()) {
      if (!t.file) continue;
      const list = byFile.get(t.file) ?? [];
      list.push(t);
      byFile.set(t.file, list);
    }
    for (const file of files) {
      const tools = byFile.get(file) ?? [];
      try {
        this.registry.replaceOrigin(file, tools.map((t) => this.toolDefinition(t)));
        this.logger.info(`graph file loaded: ${tools.map((t) => t.name).join(', ') || 'no tools'}`, { file });
        const graph = this.host.graphs().find((g) => g.config.file === file);
        for (const w of graph?.warnings ?? []) {
          const at = w.position ? `:${w.position.line}:${w.position.column}` : '';
          this.logger.warn(`graph file ${file}${at}: ${describeIssue(w)}`, { file });
        }
      } catch (e) {
        this.logger.warn(`graph file not served: ${(e as Error).message}`, { file });
      }
    }
  }

  private toolDefinition(info: GraphToolInfo): ToolDefinition {
    const host = this.host;
    const logger = this.logger;
    return {
      name: info.name,
      description: info.description || `Graph tool ${info.name} (${info.graph})`,
      inputSchema: info.inputSchema,
      outputSchema: info.outputSchema,
      // A graph may call any MCP server: no read-only, non-destructive or idempotency promise can be made for it, so
      // the hints say so explicitly (the MCP defaults, spelled out for clients that only read what is present).
      annotations: { title: info.name, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      module: 'graph',
      // A graph may call slow MCP servers: a client declaring the tasks extension gets a task for each call.
      longRunning: {},
      handler: async (args: unknown, ctx: CallContext) => {
        const handle = host.executeTool(info.name, args, { signal: ctx.signal, actor: actorOf(ctx) });
        try {
          const { result } = await handle.promise;
          if (result === null || typeof result !== 'object' || Array.isArray(result)) {
            throw new WorkgraphError(
              ErrorCodes.InvalidGraph,
              `graph tool '${info.name}' returned ${Array.isArray(result) ? 'an array' : result === null ? 'null' : typeof result}, but its outputSchema declares an object`,
            );
          }
          return new ToolResultWithMeta(result, { [EXECUTION_ID_META_KEY]: handle.executionId });
        } catch (e) {
          // Error results name the run too, so the agent can inspect what happened (graph_inspect).
          if (isWorkgraphError(e)) (e.details as Record<string, unknown>).executionId = handle.executionId;
          // A limit that guards the server (history, result size, time) is the operator's business too: logged.
          if (isWorkgraphError(e) && e.code === ErrorCodes.ExecutionLimit) {
            logger.warn(`graph run stopped: ${e.message}`, { tool: info.name, executionId: handle.executionId });
          }
          throw e;
        }
      },
    };
  }

  private async currentFiles(): Promise<string[]> {
    const out: string[] = [];
    const unreadable = new Set<string>();
    for (const p of this.paths) {
      try {
        out.push(...(await expandGraphPaths(p)));
      } catch (e) {
        unreadable.add(p);
        // Once, as for a skipped file: every later sync (a watch event in its folder) would say it again.
        if (!this.unreadablePaths.has(p)) this.logger.warn(`graph path skipped: ${(e as Error).message}`, { path: p });
      }
    }
    this.unreadablePaths = unreadable;
    return [...new Set(out)];
  }

  /** Watches each path's folder (editors replace files by rename, which ends a watch on the file itself). */
  private startWatching(): void {
    const folders = new Set<string>();
    for (const p of this.paths) {
      const abs = path.resolve(p);
      const isDir = fs.existsSync(abs) && fs.statSync(abs).isDirectory();
      folders.add(isDir ? abs : path.dirname(abs));
    }
    for (const folder of folders) {
      try {
        const w = fs.watch(folder, { persistent: false }, () => this.schedule());
        w.on('error', (e) => this.logger.warn('graph folder watch failed', { folder, err: e.message }));
        this.watchers.push(w);
      } catch (e) {
        this.logger.warn('cannot watch graph folder; changes need a restart', { folder, err: (e as Error).message });
      }
    }
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.sync(), this.options.debounceMs ?? 150);
    this.timer.unref();
  }
}

function realpathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
