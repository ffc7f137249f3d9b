import type { Transport } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../domain/types';
import type { StderrRingBuffer } from './stderr-ring-buffer';

/** A transport to one server, plus what is known about the process behind it (stdio only). */
export interface OpenedTransport {
  transport: Transport;
  /** The child's pid once started (stdio), else null. */
  pid(): number | null;
  /** Ends the session politely where the transport has one (HTTP DELETE); never throws. */
  terminate(): Promise<void>;
}

/** How long closing waits for an HTTP server to acknowledge the end of its session before giving up. */
const HTTP_TERMINATE_TIMEOUT_MS = 1000;

/**
 * Builds the SDK transport for a server config. The SDK client modules are required here, on first use, so a server
 * process that never runs a graph `mcp` node never loads them (they weigh on cold start).
 *
 * stdio: the command is spawned without a shell, with `env` merged over the SDK's safe default environment (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER) and its stderr piped into `stderr` (never inherited: our stderr is the log).
 * HTTP (`type: http` or `streamableHttp`): streamable HTTP to `url`, `headers` sent with every request.
 * SSE (`type: sse`): the older HTTP+SSE transport to `url`, `headers` sent with the stream and every POST.
 */
export function openTransport(config: McpServerConfig, stderr: StderrRingBuffer): OpenedTransport {
  if (!isHttp(config)) return openStdio(config, stderr);
  return config.type === 'sse' ? openSse(config) : openHttp(config);
}

type HttpConfig = Extract<McpServerConfig, { url: string }>;
type StdioConfig = Extract<McpServerConfig, { command: string }>;

function isHttp(config: McpServerConfig): config is HttpConfig {
  return config.type === 'http' || config.type === 'streamableHttp' || config.type === 'sse';
}

/** The older HTTP+SSE transport (an event stream from `url`, requests POSTed to the endpoint it announces). */
function openSse(config: HttpConfig): OpenedTransport {
  const { SSEClientTransport } = require('@modelcontextprotocol/client') as typeof import('@modelcontextprotocol/client');
  const headers = config.headers ? { ...config.headers } : undefined;
  const transport = new SSEClientTransport(new URL(config.url), {
    ...(headers ? { requestInit: { headers }, eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } } : {}),
  });
  return { transport, pid: () => null, terminate: async () => undefined };
}

function openHttp(config: HttpConfig): OpenedTransport {
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/client') as typeof import('@modelcontextprotocol/client');
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: config.headers ? { headers: { ...config.headers } } : undefined,
  });
  return {
    transport,
    pid: () => null,
    terminate: async () => {
      if (!transport.sessionId) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, HTTP_TERMINATE_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    },
  };
}

function openStdio(config: StdioConfig, stderr: StderrRingBuffer): OpenedTransport {
  const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/client/stdio') as typeof import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    cwd: config.cwd,
    env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
    stderr: 'pipe',
  });
  // The SDK hands out the piped stream before start(), so nothing the server writes early is lost.
  transport.stderr?.on('data', (chunk: Buffer) => stderr.append(chunk));
  return { transport, pid: () => transport.pid, terminate: async () => undefined };
}
