import type { Readable, Writable } from 'node:stream';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from '../kernel/logger';
import { Tokens } from '../kernel/tokens';
import { GraphTokens, graphRuntime, type GraphHost } from '../modules/graph';
import { WorkflowTokens, type WorkflowStorage } from '../modules/workflow';
import type { ServerCore } from './server-core';
import type { AppConfig, ModuleName } from '../kernel/config/app-config';
import type { Lifecycle } from '../kernel/lifecycle';
import type { PinoLogger } from '../kernel/logging/pino-logger';
import { LineTransport, type LineTransportOptions } from './line-transport';
import { WorkgraphServer, type ServerIdentity } from './mcp-server';
import { servedModules } from './builtin-tools';
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
  const modules = servedModules(config);
  let host: GraphHost | undefined;
  if (config.graphPaths.length > 0 && modules.includes('graph')) {
    host = await publishGraphTools(c(), registry, logger, lifecycle, config.graphPaths);
  } else if (config.graphPaths.length > 0) {
    logger.warn(`graph files not loaded: the graph module is not served (--modules ${modules.join(',')}); add graph to serve them`);
  }

  const dispatcher = new ToolDispatcher(
    () => c().resolve<JsonSchemaValidator>(Tokens.SchemaRegistry),
    (token) => c().resolve(token),
    logger,
  );
  const server = new WorkgraphServer({
    version: config.version,
    identity: serverIdentity(config, modules, host, logger),
    registry,
    dispatcher,
    logger,
    pinoLogger: opts.pinoLogger,
    pathPolicy,
    calls: lifecycle.openSession(),
    resolve: (token) => c().resolve(token),
    changeEvents: opts.core.changeEvents,
    modules,
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
    void announce(c, config, modules, registry, logger);
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
): Promise<GraphHost> {
  const { GraphToolPublisher } = graphRuntime();
  const host = c.resolve<GraphHost>(GraphTokens.GraphHost);
  const publisher = new GraphToolPublisher(host, registry, logger.child({ component: 'graphs' }), paths);
  lifecycle.onShutdown('graph file watchers', () => publisher.close());
  await publisher.start();
  return host;
}

const MODULE_INSTRUCTIONS: Record<ModuleName, string> = {
  workflow: 'guided workflows (workflow_list, workflow_next: follow the steps in order)',
  graph: 'graph tools (graph_inspect shows a run)',
  tasks: 'a task DAG whose validation commands the server runs (get_ready_tasks, start_task, validate_task_loop)',
  knowledge: 'a knowledge graph of thoughts per project (add_nodes, list_nodes)',
};

/**
 * What the server answers `initialize` with: workgraph, with instructions naming the modules served; with
 * `--only-graphs`, the first graph file's own `server` block (name, version, title, instructions), as `mcpgraph -g`.
 */
function serverIdentity(config: AppConfig, modules: readonly ModuleName[], host: GraphHost | undefined, logger: Logger): ServerIdentity {
  if (config.onlyGraphs) {
    const graphs = host?.graphs() ?? [];
    const first = graphs[0];
    if (first) {
      if (graphs.length > 1) logger.info(`--only-graphs: serving as '${first.config.server.name}' (the server block of ${first.config.file})`);
      const s = first.config.server;
      return { name: s.name, version: s.version, ...(s.title ? { title: s.title } : {}), ...(s.instructions ? { instructions: s.instructions } : {}) };
    }
    logger.warn('--only-graphs: no graph file loaded; serving under the name workgraph');
  }
  return {
    name: 'workgraph',
    version: config.version,
    instructions: `workgraph: ${modules.map((m) => MODULE_INSTRUCTIONS[m]).join('; ')}.`,
  };
}

/** The start line on stderr: version, tool count, workflow and graph counts, data dir. */
async function announce(
  c: () => DependencyContainer,
  config: AppConfig,
  modules: readonly ModuleName[],
  registry: ToolRegistry,
  logger: Logger,
): Promise<void> {
  let workflows = 'workflow module not served';
  if (modules.includes('workflow')) {
    try {
      const listing = await c().resolve<WorkflowStorage>(WorkflowTokens.WorkflowStorage).list();
      workflows = `${listing.workflows.length} workflows` + (listing.invalid.length ? ` (${listing.invalid.length} invalid)` : '');
    } catch (e) {
      workflows = 'workflows unknown';
      logger.warn('could not list workflows at start', { err: (e as Error).message });
    }
  }
  // Tools from graph files (the built-in graph_inspect does not count).
  const graphTools = registry.list().filter((t) => registry.originOf(t.name) !== 'builtin').length;
  logger.info(
    `workgraph ${config.version} serving on stdio: ${registry.list().length} tools, ${workflows}, ${graphTools} graph tool${graphTools === 1 ? '' : 's'}, data dir ${config.dataDir}, modules ${modules.join(',')}`,
  );
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
