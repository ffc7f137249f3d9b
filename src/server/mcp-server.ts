import { fileURLToPath } from 'node:url';
import { LOG_LEVEL_META_KEY, ProtocolError, Server, type JSONRPCRequest, type LoggingLevel, type ServerContext, type StandardSchemaV1, type Transport } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import { LOCAL_IDENTITY, type Identity } from '../kernel/identity';
import { callerIdentity, type AuthInfoLike } from './caller-identity';
import type { Logger } from '../kernel/logger';
import type { Sampler } from '../kernel/sampler';
import type { PinoLogger, LogLevel } from '../kernel/logging/pino-logger';
import type { CallTracker } from '../kernel/shutdown-coordinator';
import { CancelledError, ErrorCodes } from '../kernel/errors';
import { runAsLogOrigin } from '../kernel/logging/log-origin';
import { errorResult, toJsonRpcError } from './error-mapper';
import { closestName, unknownNameMessage } from './closest-name';
import { wireOutputSchema } from './wire-output-schema';
import { toolCallParams } from './tool-call-params';
import { lazyCallSignal } from './call-signal';
import { answerSchemaFailuresAsInvalidParams } from './sdk-answer-guards';
import { trackRequests } from './request-tracking';
import { JsonRpcErrorCodes } from './json-rpc-codes';
import type { ToolDispatcher } from './tool-dispatcher';
import type { ToolRegistry } from '../kernel/tools/tool-registry';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import type { InjectionToken } from 'tsyringe';
import type { ChangeEvents } from '../kernel/change-events';
import { installPromptsAndResources } from './prompts-and-resources';
import type { ChangeReacher } from '../kernel/change-reach';
import type { ListenedResources } from './listened-resources';
import { cacheHints, eraCapabilities, type ProtocolEra } from './protocol-era';
import type { ProtocolState } from './protocol-state';
import { installModernToolCall } from './modern-tool-call';
import { installTasksExtension } from './tasks-extension/tasks-extension-handlers';
import type { CallInput } from '../kernel/call-input';
import { declaresApps, requestCapabilities, servedViews, toolUiMeta, type AppsPolicy } from './mcp-apps';
import { RESOURCE_CHANGES_META, resourceChangeLog, resourceChangesTool, watchableModules } from './resource-changes';

/** The identity a server answers `initialize` with. */
export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

export interface WorkgraphServerDeps {
  version: string;
  /** Default: workgraph, `version`, instructions naming the tool families. `--only-graphs` passes the graph's own. */
  identity?: ServerIdentity;
  registry: ToolRegistry;
  dispatcher: ToolDispatcher;
  logger: Logger;
  /** When given, log entries are forwarded as notifications/message once the client sets a level. */
  pinoLogger?: PinoLogger;
  /**
   * This session's calls: refused once shutdown started, tracked while they run (shutdown waits for them), and
   * cancelled through its signal when the grace period is over — every call's signal follows it.
   */
  calls: CallTracker;
  /** Resolves use cases for prompts and resources (the same lazily built container as the tools). */
  resolve?: <T>(token: InjectionToken<T>) => T;
  /** The process's change-event port: resource subscriptions of this session listen to it. */
  changeEvents?: ChangeEvents;
  /** The modules' change reachers: a change is announced only to subscribers whose identity reaches it. */
  reachers?: () => readonly ChangeReacher[];
  /** The modules served (prompts and resources follow them). */
  modules?: readonly string[];
  /** Resource subscriptions this session may hold (`--max-subscriptions`; default 1,000). */
  maxSubscriptions?: number;
  /**
   * Whether other sessions share this process (HTTP): then each call's log entries are attributed to this session and
   * forwarded to its client only. Off for stdio alone, the one session, which then skips the bookkeeping.
   */
  isolateLogs?: boolean;
  /**
   * Whom this session's calls run as when a request carries no verified token: the local identity (stdio, HTTP
   * without authentication). With tokens, each request runs as its token's identity (docs/http.md).
   */
  caller?: Identity;
  /**
   * The protocol era this server serves (protocol-era.ts): `legacy` (default; `initialize`, sessions, roots, logging,
   * sampling) or `modern` (2026-07-28: per request, no roots, changes on `subscriptions/listen`).
   */
  era?: ProtocolEra;
  /**
   * Whether this server sends change notifications itself (tool-list changes; resource updates when `changeEvents`
   * is given). Default true. Off for the per-request servers of modern HTTP: one request's server must not write
   * change events onto that request's answer; the HTTP entry publishes them on its `subscriptions/listen` bus.
   */
  announcesChanges?: boolean;
  /**
   * Whether connecting this server tracks its requests (request-tracking.ts). Default true. stdio tracks them on its
   * line transport instead, where they arrive before the SDK's entry has built this server, and passes `refused`.
   */
  tracksRequests?: boolean;
  /** Hears a workflow folder change (modern era: announced as a prompt-list change). */
  onWorkflowsChanged?: (listener: () => void) => () => void;
  /** The set request tracking marks refused requests in (default: this server's own). */
  refused?: Set<string | number>;
  /**
   * The modern era's state kept in the stores (built on first use): the tasks extension's tasks and the requestState
   * key. Without it, the modern era runs no tasks and asks no questions.
   */
  protocolState?: () => ProtocolState;
  /** Modern stdio: the URIs the connection's listen streams name (listened-resources.ts). */
  listened?: ListenedResources;
  /**
   * MCP Apps (mcp-apps.ts): whether tools announce their views and the `ui://workgraph/…` resources are served to
   * clients that declare the extension (`--no-ui` turns it off), and whether the views offer actions. Default off.
   */
  apps?: AppsPolicy;
}


let sessionCount = 0;
let requestLogCount = 0;

/** The params schema of a plain method in the modern era: any object (the tool's own input schema checks it). */
const ANY_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'workgraph', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

/** The answer to a call that arrives once shutdown started. */
const SHUTTING_DOWN = 'the server is shutting down and takes no new calls';

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const TO_MCP_LEVEL: Record<LogLevel, LoggingLevel> = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' };

/**
 * The protocol server of one client session: the SDK's low-level `Server` with the shared tool registry behind
 * `tools/list` and `tools/call`, the plain JSON-RPC workflow methods, and what belongs to this client alone — its MCP
 * roots (its trust boundary, handed to use cases through each call's CallContext), its log level, its sampling
 * capability, its calls (a CallTracker of the shutdown coordinator). Built per connection by the session factory
 * (`createServerHost` in run-server.ts) over one shared core; the listeners it registers on shared objects (log sink,
 * tool-list changes) are removed when the session closes.
 */
export class WorkgraphServer {
  readonly sdk: Server;
  private mcpLogLevel?: LoggingLevel;
  /** This session's mark on the log entries its calls write (see log-origin.ts). */
  private readonly logOrigin = `session-${++sessionCount}`;
  private rootsCache?: Promise<string[] | undefined>;
  private readonly disposers: Array<() => void> = [];
  /** Ids of requests that arrived once shutdown had started: answered "shutting down", not run. */
  private readonly refused: Set<string | number>;

  readonly era: ProtocolEra;
  /** The views' app-only tool (resource-changes.ts), when views are on and some view shows a watchable resource. */
  private readonly appTool?: ToolDefinition;

  constructor(private readonly deps: WorkgraphServerDeps) {
    this.era = deps.era ?? 'legacy';
    const viewsOn = deps.apps?.enabled === true && servedViews(deps.registry.list()).length > 0;
    const identity = deps.identity ?? {
      name: 'workgraph',
      version: deps.version,
      instructions:
        'workgraph: guided workflows (workflow_*), graph tools, a task DAG whose validation commands the server runs, and a knowledge graph.',
    };
    this.sdk = new Server(
      { name: identity.name, version: identity.version, ...(identity.title ? { title: identity.title } : {}) },
      {
        capabilities: eraCapabilities(this.era, deps.modules ?? [], deps.resolve !== undefined, deps.protocolState !== undefined, viewsOn),
        ...(identity.instructions ? { instructions: identity.instructions } : {}),
        // With views on, the tool list differs by the request's client capabilities: private (protocol-era.ts).
        ...(this.era === 'modern' ? { cacheHints: cacheHints(viewsOn) } : {}),
      },
    );
    this.refused = deps.refused ?? new Set();
    const events = deps.changeEvents;
    if (viewsOn && events && deps.resolve && watchableModules(deps.modules ?? [])) {
      const modules = deps.modules ?? [];
      this.appTool = resourceChangesTool((uris, identity) => resourceChangeLog(events).changes(uris, modules, identity, deps.reachers ?? (() => [])));
    }
    if (deps.tracksRequests !== false) {
      // However the server is connected (here, or by the SDK's serving entries, which call the SDK server's own
      // connect), its requests are tracked from arrival to answer.
      const connect = this.sdk.connect.bind(this.sdk);
      this.sdk.connect = async (transport: Transport) => {
        await connect(transport);
        trackRequests(transport, { calls: deps.calls, refused: this.refused, logger: deps.logger });
      };
    }
    this.installHandlers();
    if (deps.resolve) {
      const unsubscribe = installPromptsAndResources(this.sdk, {
        resolve: deps.resolve,
        changeEvents: deps.announcesChanges === false ? undefined : deps.changeEvents,
        modules: deps.modules ?? [],
        era: this.era,
        caller: deps.caller,
        ...(deps.reachers ? { reachers: deps.reachers } : {}),
        ...(deps.listened ? { listened: deps.listened } : {}),
        ...(deps.apps?.enabled ? { apps: { policy: deps.apps, views: servedViews(deps.registry.list()), showsViews: (ctx) => this.showsViews(ctx), live: this.appTool !== undefined } } : {}),
        ...(deps.maxSubscriptions !== undefined ? { maxSubscriptions: deps.maxSubscriptions } : {}),
      });
      const previous = this.sdk.onclose;
      this.sdk.onclose = () => {
        unsubscribe();
        previous?.();
      };
    }
    answerSchemaFailuresAsInvalidParams(this.sdk);
  }

  /** The tool `name` names for this request: the views' app-only tool for a host that shows views, else the registry's. */
  private findTool(name: string, ctx: ServerContext): ToolDefinition | undefined {
    if (this.appTool && name === this.appTool.name && this.showsViews(ctx)) return this.appTool;
    return this.deps.registry.get(name);
  }

  /** Whether this request's client shows MCP Apps views (it declared the extension) and they are on. */
  private showsViews(ctx: ServerContext | undefined): boolean {
    if (!this.deps.apps?.enabled) return false;
    return declaresApps(requestCapabilities(ctx as { mcpReq?: { envelope?: Record<string, unknown> } } | undefined, this.sdk.getClientCapabilities()));
  }

  async connect(transport: Transport): Promise<void> {
    await this.sdk.connect(transport);
  }

  async close(): Promise<void> {
    this.dispose();
    await this.sdk.close().catch(() => undefined);
  }

  /** Removes this session's listeners from the shared core (idempotent). */
  private dispose(): void {
    for (const remove of this.disposers.splice(0)) remove();
  }

  private installHandlers(): void {
    const { registry, dispatcher } = this.deps;

    this.sdk.setRequestHandler('tools/list', async (_request, ctx) => {
      // A host that shows MCP Apps views learns each tool's view; any other client gets exactly the list without them.
      const apps = this.showsViews(ctx);
      const appTool = apps ? this.appTool : undefined;
      return {
      tools: [...registry.list().filter((t) => t.name !== appTool?.name), ...(appTool ? [appTool] : [])].map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        // Built-in tools serve their output schemas without prose; a graph file's tools are served as the file wrote them.
        outputSchema: (t.handler ? t.outputSchema : wireOutputSchema(t.outputSchema)) as { type: 'object' },
        annotations: t.annotations,
        ...(apps && t.view ? { _meta: toolUiMeta(t) } : {}),
        ...(t === appTool ? { _meta: RESOURCE_CHANGES_META } : {}),
      })),
      };
    });

    // `tools/call` is answered here rather than through setRequestHandler(CallToolRequestSchema): see tool-call-params.ts.
    const callTool = async (request: JSONRPCRequest, ctx: ServerContext) => {
      const params = toolCallParams(request.params);
      const def = this.findTool(params.name, ctx);
      if (!def) {
        const known = registry.list().map((t) => t.name);
        throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, unknownNameMessage('tool', params.name, known));
      }
      if (this.refused.has(ctx.mcpReq.id)) return errorResult(ErrorCodes.Cancelled, SHUTTING_DOWN);
      return this.withCallContext(ctx, (callCtx) => dispatcher.callTool(def, params.arguments, callCtx));
    };

    const runPlain = async (def: ToolDefinition, request: JSONRPCRequest, ctx: ServerContext) => {
      const { _meta: _ignored, ...params } = (request.params ?? {}) as Record<string, unknown>;
      if (this.refused.has(ctx.mcpReq.id)) throw toJsonRpcError(new CancelledError(SHUTTING_DOWN));
      try {
        const { value } = await this.withCallContext(ctx, (callCtx) => dispatcher.run(def, params, callCtx));
        return value as Record<string, unknown>;
      } catch (e) {
        throw toJsonRpcError(e, this.deps.logger);
      }
    };

    if (this.era === 'modern') {
      // Modern: registered with the SDK, so an unknown method is the SDK's own -32601 (404 over HTTP) and tools/call
      // passes the SDK's input_required seam; the plain workflow methods keep their names. A long-running tool runs as
      // a task for a client declaring the tasks extension; a use case may ask its caller (input_required).
      const state = this.deps.protocolState;
      if (!state) this.sdk.setRequestHandler('tools/call', (request, ctx) => callTool(request as unknown as JSONRPCRequest, ctx) as never);
      else {
        installModernToolCall(this.sdk, {
          find: (name, ctx) => this.findTool(name, ctx),
          state,
          fallback: (request, ctx) => (this.refused.has(ctx.mcpReq.id) ? callTool(request, ctx) : undefined),
          host: () => ({
            state: state(),
            dispatcher,
            calls: this.deps.calls,
            identity: (c) => this.identityOf(c),
            logger: this.deps.logger,
            run: (c, fn, seam) => this.withCallContext(c, fn, seam),
            taskContext: (c, signal, progress) => ({ ...this.callContext(c, () => signal, undefined), progress }),
          }),
          callTool,
        });
        installTasksExtension(this.sdk, () => state().tasks, (c) => this.identityOf(c).name);
      }
      for (const def of registry.list().filter((t) => t.plainMethod)) {
        this.sdk.setRequestHandler(def.name, { params: ANY_PARAMS }, (_params, ctx) => runPlain(def, { jsonrpc: '2.0', id: ctx.mcpReq.id, method: def.name, params: _params as Record<string, unknown> }, ctx));
      }
    } else {
      // Plain JSON-RPC methods (workflow_*), answered before or without initialize; anything else is -32601.
      this.sdk.fallbackRequestHandler = async (request: JSONRPCRequest, ctx: ServerContext) => {
        if (request.method === 'tools/call') return callTool(request, ctx);
        const def = registry.get(request.method);
        if (!def || !def.plainMethod) {
          const plain = registry.list().filter((t) => t.plainMethod).map((t) => t.name);
          const guess = closestName(request.method, plain);
          throw new ProtocolError(JsonRpcErrorCodes.MethodNotFound, `Method not found: ${request.method}${guess ? ` (did you mean '${guess}'?)` : ''}`);
        }
        return runPlain(def, request, ctx);
      };
    }

    // MCP logging: forward only once the client asked for it, at the level it asked for. (The modern era has no
    // logging/setLevel: a request names its level in its envelope and hears its own call's entries, withRequestLog.)
    if (this.era === 'legacy') {
      this.sdk.setRequestHandler('logging/setLevel', async (request) => {
        this.mcpLogLevel = request.params.level;
        return {};
      });
    }
    const removeSink = this.deps.pinoLogger?.addSink((level, msg, fields, origin) => {
      if (!this.mcpLogLevel) return;
      // Another client's call: its entries are not this client's business.
      if (origin !== undefined && origin !== this.logOrigin) return;
      const mcpLevel = TO_MCP_LEVEL[level];
      if (LEVELS.indexOf(mcpLevel) < LEVELS.indexOf(this.mcpLogLevel)) return;
      void this.sdk.sendLoggingMessage({ level: mcpLevel, logger: 'workgraph', data: { msg, ...fields } }).catch(() => undefined);
    });
    if (removeSink) this.disposers.push(removeSink);

    if (this.deps.announcesChanges !== false) {
      this.disposers.push(
        registry.onChange(() => {
          // Legacy: once the client said hello; modern: the SDK's entry routes it onto the listening subscriptions.
          if (this.era === 'modern' || this.sdk.getClientCapabilities()) void this.sdk.sendToolListChanged().catch(() => undefined);
        }),
      );
      // Legacy announces `prompts.listChanged: false`, as before the modern era.
      if (this.era === 'modern' && this.deps.onWorkflowsChanged && this.sdk.getCapabilities().prompts) {
        this.disposers.push(this.deps.onWorkflowsChanged(() => void this.sdk.sendPromptListChanged().catch(() => undefined)));
      }
    }
    // The transport closed (client gone, DELETE, end of stdin): nothing of this session stays on the shared core.
    this.sdk.onclose = () => this.dispose();

    this.sdk.setNotificationHandler('notifications/roots/list_changed', async () => {
      this.rootsCache = undefined;
    });
  }

  private async fetchClientRoots(): Promise<string[] | undefined> {
    try {
      const { roots } = await this.sdk.listRoots(undefined, { timeout: 10_000 });
      return roots.filter((r) => r.uri.startsWith('file://')).map((r) => fileURLToPath(r.uri));
    } catch (e) {
      this.rootsCache = undefined;
      this.deps.logger.warn('could not list client roots; using the configured roots', { err: (e as Error).message });
      return undefined;
    }
  }

  /** Runs `fn` with the call's context. Its signal aborts when the request is cancelled or the server shuts down. */
  private async withCallContext<T>(extra: ServerContext, fn: (ctx: CallContext) => Promise<T>, seam?: { input?: CallInput; sampler?: Sampler }): Promise<T> {
    const calls = this.deps.calls;
    const done = calls.begin();
    const { signal, dispose } = lazyCallSignal(extra.mcpReq.signal, calls.signal);
    try {
      const ctx = this.callContext(extra, signal, seam);
      const level = this.era === 'modern' ? (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY] : undefined;
      if (level) return await this.withRequestLog(extra, () => fn(ctx));
      return await (this.deps.isolateLogs ? runAsLogOrigin(this.logOrigin, () => fn(ctx)) : fn(ctx));
    } finally {
      dispose();
      done();
    }
  }

  /**
   * Modern era: a request that names a log level in its envelope (`io.modelcontextprotocol/logLevel`) hears the log
   * entries its own call writes, at that level and above, as notifications/message on its own answer (the SDK's
   * `ctx.mcpReq.log` applies the level); a request without it hears none. Each such call is its own log origin, so
   * concurrent calls on one connection never hear each other's entries.
   */
  private async withRequestLog<T>(extra: ServerContext, fn: () => Promise<T>): Promise<T> {
    const origin = `${this.logOrigin}-request-${++requestLogCount}`;
    const remove = this.deps.pinoLogger?.addSink((level, msg, fields, from) => {
      if (from === origin) void extra.mcpReq.log(TO_MCP_LEVEL[level], { msg, ...fields }, 'workgraph').catch(() => undefined);
    });
    try {
      return await runAsLogOrigin(origin, fn);
    } finally {
      remove?.();
    }
  }

  /** Who a request runs as (see caller-identity.ts). */
  private identityOf(extra: ServerContext): Identity {
    return callerIdentity(extra.http?.authInfo as AuthInfoLike | undefined, this.deps.caller ?? LOCAL_IDENTITY);
  }

  private callContext(extra: ServerContext, signal: () => AbortSignal, seam?: { input?: CallInput; sampler?: Sampler }): CallContext {
    const token = extra.mcpReq._meta?.progressToken;
    const progress =
      token === undefined
        ? () => undefined
        : (value: number, total?: number, message?: string) => {
            void extra.mcpReq
              .notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: value, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) },
              })
              .catch(() => undefined);
          };
    // Modern: no request to the client; a retried call's sampled completions (input_required) answer instead.
    const sampler = this.era === 'modern' ? seam?.sampler : this.sampler();
    const input = seam?.input;
    const clientName = this.sdk.getClientVersion()?.name;
    // The session's own trust boundary: its client's roots, read once per session (again after roots/list_changed).
    const clientRoots = this.sdk.getClientCapabilities()?.roots ? () => (this.rootsCache ??= this.fetchClientRoots()) : undefined;
    return {
      get signal() {
        return signal();
      },
      progress,
      sampler,
      clientRoots,
      identity: this.identityOf(extra),
      ...(clientName ? { client: clientName } : {}),
      ...(input ? { input } : {}),
      ...(this.showsViews(extra) ? { showsViews: true } : {}),
    };
  }

  private sampler(): Sampler | undefined {
    if (!this.sdk.getClientCapabilities()?.sampling) return undefined;
    return {
      complete: async ({ systemPrompt, prompt, maxTokens }, signal) => {
        const result = await this.sdk.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], systemPrompt, maxTokens },
          { signal, timeout: 5 * 60_000 },
        );
        const content = Array.isArray(result.content) ? result.content[0] : result.content;
        if (!content || content.type !== 'text') throw new Error('the client answered the sampling request without text');
        return content.text;
      },
    };
  }
}
