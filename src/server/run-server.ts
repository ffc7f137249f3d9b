import type { Readable, Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from '../kernel/logger';
import { Tokens } from '../kernel/tokens';
import { GraphTokens, graphRuntime, type GraphHost } from '../modules/graph';
import { WorkflowTokens, type WorkflowStorage } from '../modules/workflow';
import type { ServerCore } from './server-core';
import type { AppConfig } from '../kernel/config/app-config';
import type { Lifecycle } from '../kernel/lifecycle';
import type { PinoLogger } from '../kernel/logging/pino-logger';
import { LineTransport, type LineTransportOptions } from './line-transport';
import { WorkgraphServer } from './mcp-server';
import { ToolDispatcher, type JsonSchemaValidator } from './tool-dispatcher';
import type { ToolRegistry } from '../kernel/tools/tool-registry';

export interface RunServerOptions {
  /** What the server needs before its first tool call. */
  core: ServerCore;
  /**
   * Builds the DI container (with every module registered) over `core`; called once, on the first tool call or
   * when graph files must be loaded — so a server answers `initialize` and `tools/list` without loading the modules.
   */
  container: () => DependencyContainer;
  input: Readable;
  output: Writable;
  pinoLogger?: PinoLogger;
  transport?: LineTransportOptions;
}

export interface RunningServer {
  server: WorkgraphServer;
  /** Resolves once the session has ended and the shutdown has completed (hooks run, writes waited for). */
  closed: Promise<void>;
  /** Shuts down through the one shutdown path (grace for in-flight calls, then cancel), then closes the session. */
  shutdown(reason: string): Promise<void>;
  /** Same as `shutdown('stopped')`. */
  stop(): Promise<void>;
}

/**
 * Serves MCP on the given streams until the input ends, the output breaks or `shutdown()` is called, always through
 * the core's {@link ShutdownCoordinator}: at the end of stdin every request already received is answered (within the
 * grace period) before the session closes; when the output breaks nobody can read answers, so calls are cancelled at
 * once (grace 0) — their writes are still waited for.
 */
export async function runServer(opts: RunServerOptions): Promise<RunningServer> {
  const { config, logger, lifecycle, registry, pathPolicy } = opts.core;
  let built: DependencyContainer | undefined;
  const c = () => (built ??= opts.container());
  if (config.graphPaths.length > 0) await publishGraphTools(c(), registry, logger, lifecycle, config.graphPaths);

  const dispatcher = new ToolDispatcher(
    () => c().resolve<JsonSchemaValidator>(Tokens.SchemaRegistry),
    (token) => c().resolve(token),
    logger,
  );
  const server = new WorkgraphServer({
    version: config.version,
    registry,
    dispatcher,
    logger,
    pinoLogger: opts.pinoLogger,
    pathPolicy,
    calls: lifecycle.openSession(),
  });
  const transport = new LineTransport(opts.input, opts.output, opts.transport);

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const shutdown = (reason: string, graceMs?: number): Promise<void> =>
    lifecycle
      .beginShutdown(reason, graceMs === undefined ? {} : { graceMs })
      .then(() => transport.close())
      .then(() => closed);
  // stdio is the only session today, so its end is the server's end. (With HTTP beside it, the end of stdin would
  // close only this session: lifecycle.endSession(calls) then transport.close().)
  transport.oninputend = () => void shutdown('end of stdin');
  transport.onclose = () => {
    void lifecycle.beginShutdown('output closed', { graceMs: 0 }).then(resolveClosed);
  };
  transport.onerror = (e) => logger.debug('transport error', { err: e.message });
  await server.connect(transport);

  // The start line needs the workflow module; it is loaded just after the client's handshake (or after a short
  // delay for plain JSON-RPC clients), so `initialize` and `tools/list` are answered first.
  let announced = false;
  const announceOnce = () => {
    if (announced) return;
    announced = true;
    void announce(c, config, registry, logger);
  };
  const fallback = setTimeout(announceOnce, 300);
  fallback.unref();
  server.sdk.oninitialized = chain(server.sdk.oninitialized, () => setTimeout(announceOnce, 25).unref());
  return { server, closed, shutdown: (reason) => shutdown(reason), stop: () => shutdown('stopped') };
}

/** Loads the configured graph files and serves their tools (the graph code is loaded only when graphs are given). */
async function publishGraphTools(
  c: DependencyContainer,
  registry: ToolRegistry,
  logger: Logger,
  lifecycle: Lifecycle,
  paths: readonly string[],
): Promise<void> {
  const { GraphToolPublisher } = graphRuntime();
  const host = c.resolve<GraphHost>(GraphTokens.GraphHost);
  const publisher = new GraphToolPublisher(host, registry, logger.child({ component: 'graphs' }), paths);
  lifecycle.onShutdown('graph file watchers', () => publisher.close());
  await publisher.start();
}

/** The start line on stderr: version, tool count, workflow and graph counts, data dir. */
async function announce(c: () => DependencyContainer, config: AppConfig, registry: ToolRegistry, logger: Logger): Promise<void> {
  let workflows = 'workflows unknown';
  try {
    const listing = await c().resolve<WorkflowStorage>(WorkflowTokens.WorkflowStorage).list();
    workflows = `${listing.workflows.length} workflows` + (listing.invalid.length ? ` (${listing.invalid.length} invalid)` : '');
  } catch (e) {
    logger.warn('could not list workflows at start', { err: (e as Error).message });
  }
  // Tools from graph files (the built-in graph_inspect does not count).
  const graphTools = registry.list().filter((t) => registry.originOf(t.name) !== 'builtin').length;
  logger.info(
    `workgraph ${config.version} serving on stdio: ${registry.list().length} tools, ${workflows}, ${graphTools} graph tool${graphTools === 1 ? '' : 's'}, data dir ${config.dataDir}`,
  );
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
