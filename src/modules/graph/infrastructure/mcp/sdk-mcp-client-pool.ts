import type { Logger } from '../../../../kernel/logger';
import { silentLogger } from '../../../../kernel/logger';
import type { McpClientPool, McpServerDescription, McpServerRef, McpToolCallResult } from '../../application/ports/mcp-client-pool';
import { CancelledError } from '../../../../kernel/errors';
import { McpServerConnection, type McpConnectionSettings } from './mcp-server-connection';
import { DEFAULT_STDERR_TAIL_BYTES } from './stderr-ring-buffer';

/**
 * Default time one MCP request (the handshake, or one tool call) may take: 30 s. An agent's own call to a graph tool
 * times out at 60 s in most clients and workgraph aims to answer within about 45 s, so one slow server must fail
 * well before that, with an error naming it.
 */
export const DEFAULT_MCP_REQUEST_TIMEOUT_MS = 30_000;

export interface SdkMcpClientPoolOptions {
  logger?: Logger;
  /** Per request (handshake or tool call). Default {@link DEFAULT_MCP_REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number;
  /** Bytes of each server's stderr kept for errors. Default 4 KiB. */
  stderrTailBytes?: number;
  /** Sent to servers in `initialize`. Default `{name: 'workgraph', version: '0.0.0'}`. */
  clientInfo?: { name: string; version: string };
}

/**
 * The {@link McpClientPool} over the MCP SDK's Client. One connection per distinct server (name and config: two graphs
 * that declare the same name differently get two servers), opened on first use — concurrent first calls share one
 * handshake —, reused by later calls, and replaced after its transport closed (the server crashed or exited).
 */
export class SdkMcpClientPool implements McpClientPool {
  private readonly connections = new Map<string, Promise<McpServerConnection>>();
  /** Connections that are open right now, for the synchronous {@link killAll}. */
  private readonly live = new Set<McpServerConnection>();
  /** Calls in flight per connection key (a retired server is closed only when its last call ended). */
  private readonly inFlight = new Map<string, number>();
  /** Keys of the servers the loaded graphs declare; undefined until the first {@link retainOnly} (all kept). */
  private served?: Set<string>;
  private readonly settings: McpConnectionSettings;

  constructor(options: SdkMcpClientPoolOptions = {}) {
    this.settings = {
      logger: options.logger ?? silentLogger,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_MCP_REQUEST_TIMEOUT_MS,
      stderrTailBytes: options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES,
      clientInfo: options.clientInfo ?? { name: 'workgraph', version: '0.0.0' },
    };
  }

  callTool(server: McpServerRef, tool: string, args: unknown, signal?: AbortSignal): Promise<McpToolCallResult> {
    return this.withConnection(server, tool, signal, (connection) => connection.callTool(tool, args, signal));
  }

  describeServer(server: McpServerRef, signal?: AbortSignal): Promise<McpServerDescription> {
    return this.withConnection(server, null, signal, (connection) => connection.describe(signal));
  }

  /** Runs `use` on the server's connection (opened or reused), counted as in flight so a retired server waits for it. */
  private async withConnection<T>(server: McpServerRef, tool: string | null, signal: AbortSignal | undefined, use: (c: McpServerConnection) => Promise<T>): Promise<T> {
    throwIfCancelled(signal, server, tool);
    const key = connectionKey(server);
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    try {
      let connection = await untilAborted(this.connection(server, tool), signal, server, tool);
      if (connection.closed) {
        // It died between its last call and this one (its close listener has already dropped it): start afresh.
        connection = await untilAborted(this.connection(server, tool), signal, server, tool);
      }
      return await use(connection);
    } finally {
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.inFlight.set(key, left);
      else {
        this.inFlight.delete(key);
        // A server no graph declares any more (a run started before the edit called it): end it now.
        if (this.served && !this.served.has(key)) void this.closeKey(key);
      }
    }
  }

  async retainOnly(servers: readonly McpServerRef[]): Promise<void> {
    this.served = new Set(servers.map(connectionKey));
    const retired = [...this.connections.keys()].filter((key) => !this.served!.has(key) && !this.inFlight.has(key));
    await Promise.all(retired.map((key) => this.closeKey(key)));
  }

  private async closeKey(key: string): Promise<void> {
    const opening = this.connections.get(key);
    if (!opening) return;
    this.connections.delete(key);
    this.settings.logger.debug('closing an MCP server no graph declares any more', { server: key.split('\u0000')[0] });
    await opening.then(
      (connection) => connection.close(),
      () => undefined,
    );
  }

  async closeAll(): Promise<void> {
    const pending = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(
      pending.map((opening) =>
        opening.then(
          (connection) => connection.close(),
          () => undefined, // it never started: nothing to close
        ),
      ),
    );
  }

  /**
   * Kills every server process this pool started, at once and synchronously (SIGKILL): for `process.on('exit')`,
   * where nothing asynchronous runs any more. Prefer {@link closeAll}, which lets servers end cleanly.
   */
  killAll(): void {
    for (const connection of this.live) {
      const pid = connection.pid;
      if (pid === null) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private connection(server: McpServerRef, tool: string | null): Promise<McpServerConnection> {
    const key = connectionKey(server);
    const existing = this.connections.get(key);
    if (existing) return existing;
    const opening = McpServerConnection.open(server, tool, this.settings);
    this.connections.set(key, opening);
    const forget = () => {
      if (this.connections.get(key) === opening) this.connections.delete(key);
    };
    opening.then(
      (connection) => {
        this.live.add(connection);
        connection.onClose(() => {
          this.settings.logger.debug('mcp server connection closed', { server: server.name });
          this.live.delete(connection);
          forget();
        });
      },
      forget, // a failed start is not cached: the next call tries again
    );
    return opening;
  }
}

/** Identifies a server by its name and its whole config, so a changed config (graph reload) starts a new server. */
function connectionKey(server: McpServerRef): string {
  return `${server.name}\u0000${stableJson(server.config)}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function cancelled(server: McpServerRef, tool: string | null): CancelledError {
  return new CancelledError(tool === null ? `listing the tools of MCP server '${server.name}' was cancelled` : `call to MCP server '${server.name}' tool '${tool}' was cancelled`);
}

function throwIfCancelled(signal: AbortSignal | undefined, server: McpServerRef, tool: string | null): void {
  if (signal?.aborted) throw cancelled(server, tool);
}

/** Waits for `promise` unless `signal` aborts first; the connection goes on opening for other callers. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, server: McpServerRef, tool: string | null): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled(server, tool));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
