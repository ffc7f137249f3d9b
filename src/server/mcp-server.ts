import { Server, type ServerContext, type Transport } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import { lazyCallSignal } from './call-signal';
import { answerSchemaFailuresAsInvalidParams } from './sdk-answer-guards';
import { trackRequests } from './request-tracking';
import { installPromptsAndResources } from './mcp-resources';
import { cacheHints, eraCapabilities, type ProtocolEra } from './protocol-era';
import type { WorkgraphServerDeps } from './workgraph-server-deps';
import { SessionViews } from './session-views';
import { SessionLog } from './session-log';
import { SessionCallContexts, type CallSeam } from './session-call-context';
import { installSessionToolCalls } from './session-tool-calls';

/**
 * The protocol server of one client session: the SDK's low-level `Server` with the shared tool registry behind
 * `tools/list` and `tools/call`, the plain JSON-RPC workflow methods, and what belongs to this client alone — its MCP
 * roots (its trust boundary, handed to use cases through each call's CallContext), its log level, its sampling
 * capability, its calls (a CallTracker of the shutdown coordinator). Built per connection by the session factory
 * (`createServerHost` in run-server.ts) over one shared core; the listeners it registers on shared objects (log sink,
 * tool-list changes) are removed when the session closes.
 *
 * Its parts, each in its own file: how tools are called (session-tool-calls.ts, with the modern era's tasks in
 * modern-tool-call.ts), MCP Apps views (session-views.ts), MCP logging (session-log.ts) and each call's context
 * (session-call-context.ts); the options it is built from in workgraph-server-deps.ts.
 */
export class WorkgraphServer {
  readonly sdk: Server;
  private readonly disposers: Array<() => void> = [];
  /** Ids of requests that arrived once shutdown had started: answered "shutting down", not run. */
  private readonly refused: Set<string | number>;
  private readonly views: SessionViews;
  private readonly log: SessionLog;
  private readonly contexts: SessionCallContexts;

  readonly era: ProtocolEra;

  constructor(private readonly deps: WorkgraphServerDeps) {
    this.era = deps.era ?? 'legacy';
    this.views = new SessionViews(deps, () => this.sdk.getClientCapabilities());
    const identity = deps.identity ?? {
      name: 'workgraph',
      version: deps.version,
      instructions:
        'workgraph: guided workflows (workflow_*), graph tools, a task DAG whose validation commands the server runs, and a knowledge graph.',
    };
    this.sdk = new Server(
      { name: identity.name, version: identity.version, ...(identity.title ? { title: identity.title } : {}) },
      {
        capabilities: eraCapabilities(this.era, deps.modules ?? [], deps.resolve !== undefined, deps.protocolState !== undefined, this.views.on),
        ...(identity.instructions ? { instructions: identity.instructions } : {}),
        // With views on, the tool list differs by the request's client capabilities: private (protocol-era.ts).
        ...(this.era === 'modern' ? { cacheHints: cacheHints(this.views.on) } : {}),
      },
    );
    this.log = new SessionLog(this.sdk, this.era, deps.pinoLogger, deps.isolateLogs === true);
    this.contexts = new SessionCallContexts(this.sdk, { era: this.era, logger: deps.logger, caller: deps.caller, showsViews: (ctx) => this.views.shows(ctx) });
    this.refused = deps.refused ?? new Set();
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
        ...this.views.resourcesOption(),
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

    this.sdk.setRequestHandler('tools/list', async (_request, ctx) => this.views.listTools(ctx));

    installSessionToolCalls(this.sdk, {
      era: this.era,
      registry,
      dispatcher,
      logger: this.deps.logger,
      calls: this.deps.calls,
      refused: this.refused,
      protocolState: this.deps.protocolState,
      findTool: (name, ctx) => this.views.findTool(name, ctx),
      identityOf: (ctx) => this.contexts.identityOf(ctx),
      run: (ctx, fn, seam) => this.withCallContext(ctx, fn, seam),
      callContext: (ctx, signal, seam) => this.contexts.build(ctx, signal, seam),
    });

    // MCP logging: forward only once the client asked for it, at the level it asked for.
    const removeSink = this.log.install();
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
      this.contexts.forgetRoots();
    });
  }

  /** Runs `fn` with the call's context. Its signal aborts when the request is cancelled or the server shuts down. */
  private async withCallContext<T>(extra: ServerContext, fn: (ctx: CallContext) => Promise<T>, seam?: CallSeam): Promise<T> {
    const calls = this.deps.calls;
    const done = calls.begin();
    const { signal, dispose } = lazyCallSignal(extra.mcpReq.signal, calls.signal);
    try {
      const ctx = this.contexts.build(extra, signal, seam);
      return await this.log.run(extra, () => fn(ctx));
    } finally {
      dispose();
      done();
    }
  }
}
