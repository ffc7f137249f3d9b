import type { Client } from '@modelcontextprotocol/client';
import type { McpServerDescription, McpServerRef, McpServerTool, McpToolCallResult } from '../../application/ports/mcp-client-pool';
import type { Logger } from '../../../../kernel/logger';
import { CancelledError, ExternalToolError } from '../../../../kernel/errors';
import { openTransport, type OpenedTransport } from './mcp-transport-factory';
import { summarizeStderr } from './stderr-summary';
import { StderrRingBuffer } from './stderr-ring-buffer';

/** Settings one connection needs (the pool fills them from its options). */
export interface McpConnectionSettings {
  requestTimeoutMs: number;
  stderrTailBytes: number;
  clientInfo: { name: string; version: string };
  logger: Logger;
}


/**
 * One live session with one MCP server: a started child process (stdio) or an initialized HTTP session. It does not
 * restart itself: once its transport closes (the process exited, the pool closed it) it stays closed and the pool
 * opens a new one on the next call.
 */
export class McpServerConnection {
  private closedFlag = false;
  private readonly closeListeners: Array<() => void> = [];

  private constructor(
    readonly server: McpServerRef,
    private readonly client: Client,
    private readonly opened: OpenedTransport,
    private readonly stderr: StderrRingBuffer,
    private readonly settings: McpConnectionSettings,
  ) {}

  /**
   * Starts the server (stdio) or opens the session (HTTP) and runs the MCP handshake.
   * @throws ExternalToolError naming the server and `tool` (the call that needed it; null: a listing of its tools),
   *   with the stderr tail.
   */
  static async open(server: McpServerRef, tool: string | null, settings: McpConnectionSettings): Promise<McpServerConnection> {
    const stderr = new StderrRingBuffer(settings.stderrTailBytes);
    const opened = openTransport(server.config, stderr);
    const { Client: ClientClass } = require('@modelcontextprotocol/client') as typeof import('@modelcontextprotocol/client');
    const client = new ClientClass(settings.clientInfo, { capabilities: {} });
    const connection = new McpServerConnection(server, client, opened, stderr, settings);
    client.onclose = () => connection.markClosed();
    client.onerror = (error) =>
      settings.logger.debug('mcp client transport error', { server: server.name, error: String(error) });
    try {
      await client.connect(opened.transport, { timeout: settings.requestTimeoutMs });
    } catch (cause) {
      const error = await connection.failure(tool, 'could not be started', cause);
      await connection.close();
      throw error;
    }
    settings.logger.debug('mcp server connected', { server: server.name, pid: opened.pid() });
    return connection;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** The server process's pid (stdio) while it runs, else null. */
  get pid(): number | null {
    return this.opened.pid();
  }

  /** Runs `listener` once when the transport closes (immediately if it already has). */
  onClose(listener: () => void): void {
    if (this.closedFlag) listener();
    else this.closeListeners.push(listener);
  }

  /**
   * Calls one tool. A result with `isError: true` is returned as it is.
   * @throws CancelledError when `signal` aborts; ExternalToolError for everything else that keeps an answer from
   *   arriving (server exit, timeout, protocol error), with the stderr tail.
   */
  async callTool(tool: string, args: unknown, signal?: AbortSignal): Promise<McpToolCallResult> {
    // The SDK adds an abort listener per request and never removes it; a graph run passes one signal to thousands of
    // calls, so each call gets its own child signal that is dropped afterwards.
    const perCall = new AbortController();
    const forward = () => perCall.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    try {
      const result = await this.client.callTool(
        { name: tool, arguments: (args ?? {}) as Record<string, unknown> },
        { signal: perCall.signal, timeout: this.settings.requestTimeoutMs },
      );
      return result as McpToolCallResult;
    } catch (cause) {
      if (perCall.signal.aborted) {
        throw new CancelledError(`call to MCP server '${this.server.name}' tool '${tool}' was cancelled`);
      }
      const error = await this.failure(tool, 'failed', cause);
      // A failure the server did not answer with (fetch error, broken pipe) leaves the session unusable: drop it, so
      // the next call reconnects. Protocol errors and timeouts come from a live server, which is kept.
      if (!this.closedFlag && !isProtocolError(cause) && !isInvalidResult(cause) && !isSdkError(cause, REQUEST_TIMEOUT)) await this.close();
      throw error;
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }

  /**
   * The server's `serverInfo` and instructions from its handshake, and every tool it lists (all pages, fetched afresh,
   * each page within the request timeout).
   * @throws CancelledError when `signal` aborts; ExternalToolError (with the stderr tail) when the listing fails.
   */
  async describe(signal?: AbortSignal): Promise<McpServerDescription> {
    const perCall = new AbortController();
    const forward = () => perCall.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    try {
      const tools: McpServerTool[] = [];
      let cursor: string | undefined;
      // Page by page (the SDK's own aggregation stops at 64 pages and caches); a server repeating a cursor is cut off.
      const seen = new Set<string>();
      do {
        const page = await this.client.listTools(cursor === undefined ? undefined : { cursor }, { signal: perCall.signal, timeout: this.settings.requestTimeoutMs });
        for (const t of page.tools) tools.push(plainTool(t as unknown as Record<string, unknown>));
        cursor = page.nextCursor;
        if (cursor !== undefined && seen.has(cursor)) break;
        if (cursor !== undefined) seen.add(cursor);
      } while (cursor !== undefined);
      const info = this.client.getServerVersion();
      const instructions = this.client.getInstructions();
      return {
        ...(info ? { serverInfo: { name: info.name, version: info.version, ...(typeof info.title === 'string' ? { title: info.title } : {}) } } : {}),
        ...(instructions ? { instructions } : {}),
        tools,
      };
    } catch (cause) {
      if (perCall.signal.aborted) throw new CancelledError(`listing the tools of MCP server '${this.server.name}' was cancelled`);
      const error = await this.failure(null, 'failed', cause);
      if (!this.closedFlag && !isProtocolError(cause) && !isInvalidResult(cause) && !isSdkError(cause, REQUEST_TIMEOUT)) await this.close();
      throw error;
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }

  /** Closes the client and ends the server: stdin closed, then SIGTERM after 2 s, SIGKILL after 2 s more (SDK). */
  async close(): Promise<void> {
    if (!this.closedFlag) await this.opened.terminate();
    try {
      await this.client.close();
    } catch (error) {
      this.settings.logger.debug('mcp client close failed', { server: this.server.name, error: String(error) });
    }
    this.markClosed();
  }

  private markClosed(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  /** Builds the one-line error for a failed start or call, once the server's last stderr output has been read. */
  private async failure(tool: string | null, what: string, cause: unknown): Promise<ExternalToolError> {
    // The process's 'close' can be handled before its final stderr chunk is delivered to our buffer; let it land.
    await new Promise((resolve) => setImmediate(resolve));
    const stderrTail = this.stderr.tail();
    const reason = describeCause(cause, this.closedFlag, this.settings.requestTimeoutMs);
    const shortTail = summarizeStderr(stderrTail);
    // A listing names no tool: "MCP server 'x' could not be started: …", "MCP server 'x' tools/list failed: …".
    const subject = tool !== null ? ` tool '${tool}'` : what === 'failed' ? ' tools/list' : '';
    return new ExternalToolError(
      `MCP server '${this.server.name}'${subject} ${what}: ${reason}${shortTail ? `; stderr: ${shortTail}` : ''}`,
      { server: this.server.name, ...(tool !== null ? { tool } : {}), stderrTail },
    );
  }
}

/** A listed tool as plain data: the fields the authoring tools answer with (the SDK's extras left out). */
function plainTool(t: Record<string, unknown>): McpServerTool {
  const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const outputSchema = obj(t.outputSchema);
  const annotations = obj(t.annotations);
  return {
    name: String(t.name),
    ...(typeof t.title === 'string' ? { title: t.title } : {}),
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    inputSchema: obj(t.inputSchema) ?? { type: 'object' },
    ...(outputSchema ? { outputSchema } : {}),
    ...(annotations ? { annotations } : {}),
  };
}

/** The SDK's local error codes (SdkErrorCode): no answer in time, the connection closed, an invalid result. */
const CONNECTION_CLOSED = 'CONNECTION_CLOSED';
const REQUEST_TIMEOUT = 'REQUEST_TIMEOUT';
const INVALID_RESULT = 'INVALID_RESULT';

/** An error the server answered with (a JSON-RPC error response). */
function isProtocolError(e: unknown): boolean {
  return e instanceof Error && e.name === 'ProtocolError' && typeof (e as { code?: unknown }).code === 'number';
}

/** An error the SDK raised locally, with its code. */
function isSdkError(e: unknown, code: string): boolean {
  return e instanceof Error && (e as { code?: unknown }).code === code;
}

/** A result that is not a valid CallToolResult: the server is alive but wrong. */
function isInvalidResult(e: unknown): boolean {
  return isSdkError(e, INVALID_RESULT) || (e instanceof Error && /ZodError$/.test(e.name));
}

function describeCause(cause: unknown, closed: boolean, timeoutMs: number): string {
  if (isSdkError(cause, REQUEST_TIMEOUT)) return `no answer within ${timeoutMs} ms`;
  if (isSdkError(cause, CONNECTION_CLOSED)) return 'the server closed the connection (exited)';
  const message = cause instanceof Error ? cause.message : String(cause);
  return closed ? `${message} (the server exited)` : message;
}
