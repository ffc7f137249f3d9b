import { constants as fsConstants, promises as fs } from 'node:fs';
import { changeReachersIn } from '../kernel/change-reachers';
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
import type { CallTracker } from '../kernel/shutdown-coordinator';
import { trackRequests } from './request-tracking';
import { ListenedResources, trackListens } from './listened-resources';
import { resourceTargetOf } from './resource-uris';
import { sharedFolderWatch } from './folder-changes';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { LineTransport, type LineTransportOptions } from './line-transport';
import { announceAfterFirstAnswer } from './start-line-timing';
import { WorkgraphServer } from './mcp-server';
import { serverIdentity } from './server-identity';
import type { ProtocolEra } from './protocol-era';
import { servedModules } from './builtin-tools';
import { ToolDispatcher, type JsonSchemaValidator } from './tool-dispatcher';
import type { ToolRegistry } from '../kernel/tools/tool-registry';
import { makeDir } from '../kernel/files/make-dir';

export interface ServerHostOptions {
  /** What the server needs before its first tool call. */
  core: ServerCore;
  /**
   * Builds the DI container (with every module registered) over `core`; called once, on the first tool call or
   * when graph files must be loaded — so a server answers `initialize` and `tools/list` without loading the modules.
   */
  container: () => DependencyContainer;
  pinoLogger?: PinoLogger;
}

/** How one session's protocol server is built (see WorkgraphServerDeps for each). */
export interface SessionOptions {
  isolateLogs?: boolean;
  era?: ProtocolEra;
  announcesChanges?: boolean;
  /** The session's calls, when its transport tracks them itself (stdio); default: a new one of the lifecycle. */
  calls?: CallTracker;
  /** With `calls`: where that tracking marks refused requests. */
  refused?: Set<string | number>;
  /** Whether connecting the server tracks its requests; default: when no `calls` are given. */
  tracksRequests?: boolean;
  /** Modern stdio: the URIs the connection's listen streams name (listened-resources.ts). */
  listened?: ListenedResources;
}

/** A protocol server built for one client session, with the end of that session. */
export interface HostedSession {
  server: WorkgraphServer;
  /**
   * Ends this session only (the server goes on): no new calls, the running ones get the grace period (or `graceMs`),
   * then are cancelled; resolves once they settled. Then close the transport.
   */
  end(opts?: { graceMs?: number }): Promise<void>;
}

/**
 * The shared core every client session runs on — tool registry, dispatcher, the lazily built container (stores,
 * engines, client pools, graph host), the shutdown coordinator — and the factory that builds one protocol server per
 * session (stdio is one session; each HTTP session is another).
 */
export interface ServerHost {
  core: ServerCore;
  /**
   * A new protocol server for one client session (legacy era by default), its calls tracked by the shutdown
   * coordinator. `announcesChanges: false` for the per-request servers of modern HTTP (see WorkgraphServerDeps).
   */
  newSession(opts?: SessionOptions): HostedSession;
  /** Logs the start line once, naming where the server listens (`stdio`, `http://127.0.0.1:8080/mcp`). */
  announce(where: string): void;
  /** The container (built on first use): what a dashboard mounted beside the sessions reads through. */
  container(): DependencyContainer;
  /** Whether the stores can be reached (`/readyz`): the data folder exists or can be made, and is writable. */
  ready(): Promise<boolean>;
  /** Hears a change in a workflow folder (the prompt list); returns the function that stops. */
  onWorkflowsChanged(listener: () => void): () => void;
}

export async function createServerHost(opts: ServerHostOptions): Promise<ServerHost> {
  const { config, logger, lifecycle, registry } = opts.core;
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
  const identity = serverIdentity(config, modules, host, logger);
  const onWorkflowsChanged = modules.includes('workflow') ? sharedFolderWatch(() => config.workflowSources.map((s) => s.dir)) : () => () => undefined;
  let announced = false;
  // The modern era's tasks and requestState key, in the stores: built on the first modern tool call.
  let protocolState: import('./protocol-state').ProtocolState | undefined;
  const state = () =>
    (protocolState ??= (require('./protocol-state') as typeof import('./protocol-state')).createProtocolState(config, logger, () => c().resolve(Tokens.Database)));
  return {
    core: opts.core,
    container: c,
    newSession: (sessionOpts = {}) => {
      const calls = sessionOpts.calls ?? lifecycle.openSession();
      const server = new WorkgraphServer({
        version: config.version,
        identity,
        registry,
        dispatcher,
        logger,
        pinoLogger: opts.pinoLogger,
        calls,
        resolve: (token) => c().resolve(token),
        reachers: () => changeReachersIn(c()),
        changeEvents: opts.core.changeEvents,
        modules,
        maxSubscriptions: config.maxSubscriptions,
        isolateLogs: sessionOpts.isolateLogs === true,
        era: sessionOpts.era ?? 'legacy',
        onWorkflowsChanged,
        announcesChanges: sessionOpts.announcesChanges ?? true,
        tracksRequests: sessionOpts.tracksRequests ?? sessionOpts.calls === undefined,
        ...(sessionOpts.refused ? { refused: sessionOpts.refused } : {}),
        ...(sessionOpts.era === 'modern' ? { protocolState: state } : {}),
        ...(sessionOpts.listened ? { listened: sessionOpts.listened } : {}),
        apps: config.ui ?? { enabled: false, actions: false },
      });
      return { server, end: (o) => lifecycle.endSession(calls, o) };
    },
    announce: (where) => {
      if (announced) return;
      announced = true;
      void announce(c, config, modules, registry, logger, where);
    },
    onWorkflowsChanged,
    ready: async () => {
      try {
        await makeDir(config.dataDir);
        await fs.access(config.dataDir, fsConstants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export interface StdioSessionOptions {
  input: Readable;
  output: Writable;
  transport?: LineTransportOptions;
  /** Where else the server listens (`http://127.0.0.1:8080/mcp`): then the end of stdin ends this session only. */
  alsoServing?: string;
}

export interface RunningServer {
  /** Resolves once the session has ended — and, for stdio alone, once the server's shutdown has completed. */
  closed: Promise<void>;
  /** Shuts the server down through the one shutdown path (grace for in-flight calls, then cancel), then closes the session. */
  shutdown(reason: string): Promise<void>;
  /** Same as `shutdown('stopped')`. */
  stop(): Promise<void>;
}

/**
 * Serves one MCP session on the given streams (stdio). Alone, its end is the server's end, always through the core's
 * {@link ShutdownCoordinator}: at the end of stdin every request already received is answered (within the grace
 * period) before the session closes; when the output breaks nobody can read answers, so calls are cancelled at once
 * (grace 0) — their writes are still waited for. Beside HTTP (`alsoServing`), the same happens to this session only.
 */
export async function serveStdio(host: ServerHost, opts: StdioSessionOptions): Promise<RunningServer> {
  const { logger, lifecycle } = host.core;
  const transport = new LineTransport(opts.input, opts.output, opts.transport);
  const alone = opts.alsoServing === undefined;
  // The session is built when the opening message has told the SDK's entry the connection's era; its calls are
  // tracked from the moment a line arrives, before that.
  const calls = lifecycle.openSession();
  const refused = new Set<string | number>();
  let session: HostedSession | undefined;

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const shutdown = (reason: string, graceMs?: number): Promise<void> =>
    lifecycle
      .beginShutdown(reason, graceMs === undefined ? {} : { graceMs })
      .then(() => transport.close())
      .then(() => closed);
  const endSession = async (graceMs?: number): Promise<void> => {
    await lifecycle.endSession(calls, graceMs === undefined ? {} : { graceMs });
    await transport.close();
    await session?.server.close();
  };
  transport.oninputend = () => void (alone ? shutdown('end of stdin') : endSession());
  // Modern: what the connection's listen streams name is watched in the data dir, and its knowledge nodes announced.
  const listened = new ListenedResources(host.core.changeEvents, (uri) => resourceTargetOf(uri, servedModules(host.core.config)), host.core.config.maxSubscriptions);
  // The SDK's stdio entry decides the era from the opening exchange (an `initialize` or any message without the
  // 2026-07-28 envelope: legacy; an enveloped request: modern) and pins one server per connection, built here.
  sdkServeStdio(
    ({ era }) => {
      // Beside HTTP other clients share the process: this session's log entries are kept to itself.
      session = host.newSession({ isolateLogs: !alone, era, calls, refused, ...(era === 'modern' ? { listened } : {}) });
      return session.server.sdk;
    },
    { transport, onerror: (e) => logger.debug('stdio protocol error', { err: e.message }) },
  );
  // The entry closes its server when the transport closes; then the session (or the server, alone) ends.
  const entryClose = transport.onclose;
  transport.onclose = () => {
    entryClose?.();
    if (alone) void lifecycle.beginShutdown('output closed', { graceMs: 0 }).then(resolveClosed);
    else void lifecycle.endSession(calls, { graceMs: 0 }).then(resolveClosed);
  };
  const entryError = transport.onerror;
  transport.onerror = (e) => {
    entryError?.(e);
    logger.debug('transport error', { err: e.message });
  };
  trackRequests(transport, { calls, refused, logger });
  trackListens(transport, listened);

  // The start line needs the workflow module: it is loaded once the client's handshake and first request have been
  // answered, so `initialize` and `tools/list` never wait for it.
  announceAfterFirstAnswer(transport, () => host.announce(alone ? 'stdio' : `stdio and ${opts.alsoServing}`));
  return { closed, shutdown: (reason) => shutdown(reason), stop: () => shutdown('stopped') };
}

export interface RunServerOptions extends ServerHostOptions, StdioSessionOptions {}

/** Serves MCP on the given streams alone (stdio): its end is the server's end. */
export async function runServer(opts: RunServerOptions): Promise<RunningServer> {
  return serveStdio(await createServerHost(opts), { ...opts, alsoServing: undefined });
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
  // The authoring tools' writes reload through it, so the served list changes at once.
  c.register(GraphTokens.GraphFileSync, { useValue: publisher });
  return host;
}

/** The start line on stderr: where, version, tool count, workflow and graph counts, data dir. */
async function announce(
  c: () => DependencyContainer,
  config: AppConfig,
  modules: readonly ModuleName[],
  registry: ToolRegistry,
  logger: Logger,
  where: string,
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
    `workgraph ${config.version} serving on ${where}: ${registry.list().length} tools, ${workflows}, ${graphTools} graph tool${graphTools === 1 ? '' : 's'}, data dir ${config.dataDir}, modules ${modules.join(',')}`,
  );
}
