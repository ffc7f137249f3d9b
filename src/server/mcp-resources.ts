import { ProtocolError, type Server } from '@modelcontextprotocol/server';
import type { InjectionToken } from 'tsyringe';
import type { ChangeEvent, ChangeEvents, ChangeTarget } from '../kernel/change-events';
import { noopCallContext } from '../kernel/call-context';
import { LOCAL_IDENTITY, type Identity } from '../kernel/identity';
import { callerIdentity, type AuthInfoLike } from './caller-identity';
import { ResourceLimitError, WorkgraphError } from '../kernel/errors';
import { changeInReach, type ChangeReacher } from '../kernel/change-reach';
import type { UseCase } from '../kernel/use-case';
import { WorkflowTokens, type ListSessionsOutput, type SessionTimeline, type WorkflowListing } from '../modules/workflow';
import { TasksTokens, type ProjectGraphView, type TaskProjectSummary } from '../modules/tasks';
import { toJsonRpcError } from './error-mapper';
import { JsonRpcErrorCodes } from './json-rpc-codes';
import type { ListenedResources } from './listened-resources';
import { readView, viewResources, type AppsPolicy } from './mcp-apps';
import type { AppView } from '../kernel/tools/app-views';
import type { ServerContext } from '@modelcontextprotocol/server';
import { knowledgeProjectOf, knowledgeResourceTemplates, knowledgeTarget, listKnowledgeResources, readKnowledgeResource } from './knowledge-resources';
import { graphRunResourceTemplates, graphRunTarget, graphRunUri, listGraphRunResources, readGraphRunResource } from './graph-run-resources';

export interface PromptsAndResourcesDeps {
  /** Resolves a use case from the (lazily built) container. */
  resolve: <T>(token: InjectionToken<T>) => T;
  /** The process's change-event port; subscriptions of THIS client session listen to it. */
  changeEvents?: ChangeEvents;
  /** The modules served: prompts and session resources need `workflow`, task graphs `tasks`, graph runs `graph`. */
  modules: readonly string[];
  /** Whom a request without a verified token runs as (the session's identity: the local one for stdio). */
  caller?: Identity;
  /** Resource subscriptions one session may hold (`--max-subscriptions`); beyond it `resource_limit`. Default 1,000. */
  maxSubscriptions?: number;
  /**
   * legacy (default): `resources/subscribe` names what this session hears. modern: every change is sent and the SDK's
   * `subscriptions/listen` routing delivers it to the listeners that named the resource (and a session change as a
   * resource-list change).
   */
  era?: 'legacy' | 'modern';
  /**
   * The modules' change reachers (kernel/change-reach.ts): a change is announced to a subscriber only when it is
   * within the reach of the identity that subscribed. Without them only an identity that reaches everything hears.
   */
  reachers?: () => readonly ChangeReacher[];
  /** Modern era: the URIs this connection's listen streams name (knowledge node URIs are announced from it). */
  listened?: ListenedResources;
  /** MCP Apps views (mcp-apps.ts): listed and read only for a request whose client `showsViews`. */
  apps?: {
    policy: AppsPolicy;
    views: readonly AppView[];
    showsViews: (ctx: ServerContext) => boolean;
    /** The views' app-only resource_changes tool is served: they poll it to stay live (resource-changes.ts). */
    live: boolean;
  };
}

export const DEFAULT_MAX_SUBSCRIPTIONS = 1_000;

/**
 * MCP capabilities these handlers serve with these modules; `viewsServed`: MCP Apps views are on for some tool, so the
 * `ui://workgraph/…` resources are served even by a server of the graph module alone.
 */
export function promptsAndResourcesCapabilities(modules: readonly string[], viewsServed = false): Record<string, object> {
  const caps: Record<string, object> = {};
  if (modules.includes('workflow')) caps.prompts = { listChanged: false };
  if (viewsServed || modules.includes('workflow') || modules.includes('tasks') || modules.includes('knowledge') || modules.includes('graph')) caps.resources = { subscribe: true, listChanged: false };
  return caps;
}

export const EXPECTED_URIS = 'workgraph://sessions/<id>, workgraph://projects/<id>/tasks, workgraph://knowledge/<project>, workgraph://knowledge/<project>/nodes/<id> or workgraph://graph/runs/<runId>';
const SESSION_URI = /^workgraph:\/\/sessions\/([0-9a-f]{16})$/;
/** A session's timeline from a page on: `workgraph://sessions/<id>?cursor=<nextCursor of the page before>`. */
const SESSION_PAGE_URI = /^workgraph:\/\/sessions\/([0-9a-f]{16})(?:\?cursor=([^&#\s]+))?$/;
const TASKS_URI = /^workgraph:\/\/projects\/([a-z0-9][a-z0-9-]*)\/tasks$/;

/**
 * Every workflow is an MCP prompt (its message tells the agent to start a session with workflow_start — getting it
 * starts nothing); sessions (`workgraph://sessions/<id>`) and task graphs (`workgraph://projects/<id>/tasks`, JSON and
 * Mermaid) are resources. Subscriptions belong to this client session (one set per protocol server); a change event
 * for a subscribed resource becomes `notifications/resources/updated`. Returns the function that removes the
 * session's listener (call it when the session closes).
 */
export function installPromptsAndResources(sdk: Server, deps: PromptsAndResourcesDeps): () => void {
  const workflow = deps.modules.includes('workflow');
  const tasksServed = deps.modules.includes('tasks');
  const knowledgeServed = deps.modules.includes('knowledge');
  const graphServed = deps.modules.includes('graph');
  // A tool's view (graph_inspect's) must be readable wherever the tool announces it.
  if (!workflow && !tasksServed && !knowledgeServed && !graphServed && !deps.apps?.views.length) return () => undefined;
  const call = async <O>(token: symbol, input: unknown, extra: { authInfo?: AuthInfoLike }): Promise<O> => {
    try {
      // As the request's identity: a resource is read with the caller's reach, exactly as its tool would be.
      const identity = callerIdentity(extra.authInfo, deps.caller ?? LOCAL_IDENTITY);
      return await deps.resolve<UseCase<unknown, O>>(token).execute(input, noopCallContext(undefined, identity));
    } catch (e) {
      if (e instanceof WorkgraphError && (e.code === 'not_found' || e.code === 'invalid_arguments' || e.code === 'invalid_workflow' || e.code === 'unsafe_path')) {
        throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `${e.code}: ${e.message}`);
      }
      throw e;
    }
  };

  if (workflow) installPrompts(sdk, call);
  return installResources(sdk, call, deps, { workflow, tasksServed, knowledgeServed, graphServed });
}

/** Which modules' resources are served. */
interface Served {
  workflow: boolean;
  tasksServed: boolean;
  knowledgeServed: boolean;
  graphServed: boolean;
}

type Call = <O>(token: symbol, input: unknown, extra: { authInfo?: AuthInfoLike }) => Promise<O>;

/** The request's AuthInfo as the SDK's v2 hands it to a handler (`ctx.http.authInfo`). */
function authOf(ctx: { http?: { authInfo?: unknown } }): { authInfo?: AuthInfoLike } {
  return { authInfo: ctx.http?.authInfo as AuthInfoLike | undefined };
}

function installPrompts(sdk: Server, call: Call): void {
  sdk.setRequestHandler('prompts/list', async (_request, ctx) => {
    const { workflows } = await call<WorkflowListing>(WorkflowTokens.ListWorkflows, {}, authOf(ctx));
    return {
      prompts: workflows.map((w) => ({
        name: w.id,
        title: w.name,
        description: `${w.description} (starts a durable workgraph session)`,
        arguments: [
          { name: 'goal', description: 'What this run is for (kept with the session, matched by workflow_resume).', required: false },
          { name: 'gitBranch', description: 'The branch worked on.', required: false },
        ],
      })),
    };
  });

  sdk.setRequestHandler('prompts/get', async (request, ctx) => {
    const workflow = await call<{ id: string; name: string; description: string }>(WorkflowTokens.GetWorkflow, { id: request.params.name, mode: 'metadata' }, authOf(ctx));
    const args = request.params.arguments ?? {};
    const startArgs: Record<string, string> = { workflowId: workflow.id };
    if (args.goal) startArgs.goal = args.goal;
    if (args.gitBranch) startArgs.gitBranch = args.gitBranch;
    const text = [
      `Run the workgraph workflow "${workflow.name}" (${workflow.id}) as a durable session: ${workflow.description}`,
      '',
      `1. Call the tool workflow_start with ${JSON.stringify(startArgs)}${args.goal ? '' : ' (add a one-line "goal" saying what this run is for)'}.`,
      '2. Do the step it returns (its instructions are in guidance.prompt).',
      '3. Call workflow_continue with the continueToken of the last answer and output.notesMarkdown saying what you did; repeat until isComplete is true.',
      '4. If an answer is "blocked", fix exactly what its blockers list and send it again with the retryToken; if the attempts are exhausted, stop and ask me.',
      'If this chat ends before the run does, a new chat picks it up with workflow_resume.',
    ].join('\n');
    return { description: `Start a session of ${workflow.name}`, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
  });

}

function installResources(sdk: Server, call: Call, deps: PromptsAndResourcesDeps, served: Served): () => void {
  const { workflow, tasksServed, knowledgeServed, graphServed } = served;
  // Sessions (most recently updated first), every project's task graph, knowledge graphs, the newest graph runs.
  sdk.setRequestHandler('resources/list', async (_request, ctx) => {
    const sessions = workflow ? (await call<ListSessionsOutput>(WorkflowTokens.ListSessions, { limit: 500 }, authOf(ctx))).sessions : [];
    const projects = tasksServed ? (await call<{ projects: TaskProjectSummary[] }>(TasksTokens.ListTaskProjects, {}, authOf(ctx))).projects : [];
    const knowledge = knowledgeServed ? await listKnowledgeResources((token, input) => call(token, input, authOf(ctx))) : [];
    const runs = graphServed ? await listGraphRunResources((token, input) => call(token, input, authOf(ctx))) : [];
    const views = deps.apps?.showsViews(ctx) ? viewResources(deps.apps.views) : [];
    return {
      resources: [
        ...views,
        ...sessions.map((s) => ({
          uri: `workgraph://sessions/${s.sessionId}`,
          name: `session ${s.sessionId}`,
          title: `${s.workflowId}${s.goal ? `: ${s.goal}` : ''} (${s.status})`,
          mimeType: 'application/json',
        })),
        ...projects.map((p) => ({
          uri: `workgraph://projects/${p.id}/tasks`,
          name: `tasks ${p.id}`,
          title: `${p.name}: task graph (${p.counts.COMPLETED ?? 0} of ${p.total} completed)`,
          description: `The task graph of ${p.root}: JSON, and a Mermaid flowchart.`,
          mimeType: 'application/json',
        })),
        ...knowledge,
        ...runs,
      ],
    };
  });

  sdk.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: [
      ...(workflow ? [{ uriTemplate: 'workgraph://sessions/{sessionId}', name: 'workflow session', description: "A durable workflow session's timeline (JSON), one page of events; `nextUri` names the next page (…?cursor=…).", mimeType: 'application/json' }] : []),
      ...(tasksServed ? [{ uriTemplate: 'workgraph://projects/{projectId}/tasks', name: 'project task graph', description: "A project's task graph: JSON, and a Mermaid flowchart.", mimeType: 'application/json' }] : []),
      ...(knowledgeServed ? knowledgeResourceTemplates : []),
      ...(graphServed ? graphRunResourceTemplates : []),
    ],
  }));

  // Modern era (SEP-2164): a resource that does not exist is -32602 with the URI asked for in `data.uri`.
  const modernRead = deps.era === 'modern';
  sdk.setRequestHandler('resources/read', async (request, ctx) => {
    if (!modernRead) return readResource(request.params.uri, ctx);
    try {
      return await readResource(request.params.uri, ctx);
    } catch (e) {
      if (e instanceof ProtocolError && e.code === JsonRpcErrorCodes.InvalidParams) throw new ProtocolError(e.code, e.message, { uri: request.params.uri });
      throw e;
    }
  });
  const readResource = async (uri: string, ctx: ServerContext) => {
    if (deps.apps?.showsViews(ctx)) {
      const view = await readView(uri, deps.apps.views, deps.apps.policy, callerIdentity(authOf(ctx).authInfo, deps.caller ?? LOCAL_IDENTITY), deps.apps.live);
      if (view) return view as never;
    }
    const session = workflow ? SESSION_PAGE_URI.exec(uri) : null;
    if (session) {
      const cursor = session[2] !== undefined ? decodeURIComponent(session[2]) : undefined;
      const timeline = await call<SessionTimeline>(WorkflowTokens.GetSessionTimeline, { sessionId: session[1], ...(cursor !== undefined ? { cursor } : {}) }, authOf(ctx));
      // One page of events (as workflow_session answers): where the next one is, when there is one.
      const next = timeline.nextCursor ? { nextUri: `workgraph://sessions/${session[1]}?cursor=${encodeURIComponent(timeline.nextCursor)}` } : {};
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...timeline, ...next }) }] };
    }
    const tasks = tasksServed ? TASKS_URI.exec(uri) : null;
    if (tasks) {
      const view = await call<ProjectGraphView>(TasksTokens.GetProjectGraph, { project: tasks[1] }, authOf(ctx));
      const { mermaid, ...json } = view;
      return {
        contents: [
          { uri, mimeType: 'application/json', text: JSON.stringify(json) },
          { uri, mimeType: 'text/vnd.mermaid', text: mermaid },
        ],
      };
    }
    const knowledge = knowledgeServed ? await readKnowledgeResource(uri, (token, input) => call(token, input, authOf(ctx))) : undefined;
    if (knowledge) return knowledge;
    const run = graphServed ? await readGraphRunResource(uri, (token, input) => call(token, input, authOf(ctx))) : undefined;
    if (run) return run;
    throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `unknown resource ${JSON.stringify(uri)}; expected ${EXPECTED_URIS}`);
  };

  /**
   * This session's subscriptions, each with the function that stops hearing other processes' changes to it. Bounded
   * (`maxSubscriptions`), and looked up by URI: a change event costs this session one map lookup however many it holds.
   */
  const subscribed = new Map<string, { stop: () => void; identity: Identity }>();
  const max = deps.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS;
  const reachers = deps.reachers ?? (() => []);
  sdk.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const uri = request.params.uri;
    const target = targetOf(uri) ?? (knowledgeServed ? knowledgeTarget(uri) : undefined) ?? (graphServed ? graphRunTarget(uri) : undefined);
    if (!target) {
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `cannot subscribe to ${JSON.stringify(uri)}; expected ${EXPECTED_URIS}`);
    }
    if (subscribed.has(uri)) return {};
    if (subscribed.size >= max) {
      throw toJsonRpcError(
        new ResourceLimitError('subscriptions', max, `this session holds ${max} resource subscriptions, the most it may (--max-subscriptions); unsubscribe from one before subscribing to ${uri}`),
      );
    }
    // Subscribing to a resource out of reach succeeds as for one that does not exist (nothing is confirmed); the
    // identity is kept, and a change is announced only when it is within its reach.
    const identity = callerIdentity(authOf(ctx).authInfo, deps.caller ?? LOCAL_IDENTITY);
    subscribed.set(uri, { stop: deps.changeEvents?.watch?.(target) ?? (() => undefined), identity });
    return {};
  });
  sdk.setRequestHandler('resources/unsubscribe', async (request) => {
    subscribed.get(request.params.uri)?.stop();
    subscribed.delete(request.params.uri);
    return {};
  });

  const modern = deps.era === 'modern';
  const stopListening =
    deps.changeEvents?.subscribe((e: ChangeEvent) => {
      if (modern) {
        const uri = resourceUriOf(e, deps.modules);
        if (!uri) return;
        void changeInReach(reachers, e, deps.caller ?? LOCAL_IDENTITY).then((ok) => {
          if (!ok) return;
          void sdk.sendResourceUpdated({ uri }).catch(() => undefined);
          // A knowledge change updates its project's node resources too: those a listen stream names.
          if (e.kind === 'knowledge') for (const node of deps.listened?.nodeUrisOf(e.project ?? e.id) ?? []) void sdk.sendResourceUpdated({ uri: node }).catch(() => undefined);
          // The resource list is the sessions, task graphs and knowledge graphs: a change may be a new one. (Not a
          // graph run's: its record is saved every ~250 ms while it runs.)
          if (e.kind !== 'graph-run') void sdk.sendResourceListChanged().catch(() => undefined);
        });
        return;
      }
      const uris: string[] = [];
      const uri =
        e.kind === 'session' ? `workgraph://sessions/${e.id}` : e.kind === 'tasks' ? `workgraph://projects/${e.project ?? e.id}/tasks` : e.kind === 'graph-run' ? graphRunUri(e.id) : undefined;
      if (uri && subscribed.has(uri)) uris.push(uri);
      // A knowledge change updates the project's resource and every node resource of it this session holds.
      if (e.kind === 'knowledge') {
        for (const u of subscribed.keys()) if (knowledgeProjectOf(u) === (e.project ?? e.id)) uris.push(u);
      }
      if (uris.length) void announceInReach(e, uris);
    }) ?? (() => undefined);
  /** One reach lookup per identity among the subscriptions a change touches (a session has one identity). */
  const announceInReach = async (e: ChangeEvent, uris: string[]) => {
    const verdicts = new Map<Identity, Promise<boolean>>();
    for (const u of uris) {
      const sub = subscribed.get(u);
      if (!sub) continue;
      if (!verdicts.has(sub.identity)) verdicts.set(sub.identity, changeInReach(reachers, e, sub.identity));
      if (await verdicts.get(sub.identity)!) void sdk.sendResourceUpdated({ uri: u }).catch(() => undefined);
    }
  };
  return () => {
    stopListening();
    for (const sub of subscribed.values()) sub.stop();
    subscribed.clear();
  };
}

/**
 * The resource a change event is about, when it is one this server serves (modern era: what a listener names in its
 * `resourceSubscriptions`; a knowledge change is its project's resource).
 */
export function resourceUriOf(e: ChangeEvent, modules: readonly string[]): string | undefined {
  if (e.kind === 'session' && modules.includes('workflow')) return `workgraph://sessions/${e.id}`;
  if (e.kind === 'tasks' && modules.includes('tasks')) return `workgraph://projects/${e.project ?? e.id}/tasks`;
  if (e.kind === 'knowledge' && modules.includes('knowledge')) return `workgraph://knowledge/${e.project ?? e.id}`;
  if (e.kind === 'graph-run' && modules.includes('graph')) return graphRunUri(e.id);
  return undefined;
}

/** The change target a resource URI names, when the modules served serve it. */
export function resourceTargetOf(uri: string, modules: readonly string[]): ChangeTarget | undefined {
  const target = targetOf(uri);
  if (target) return (target.kind === 'session' ? modules.includes('workflow') : modules.includes('tasks')) ? target : undefined;
  const run = graphRunTarget(uri);
  if (run) return modules.includes('graph') ? run : undefined;
  return modules.includes('knowledge') ? knowledgeTarget(uri) : undefined;
}

/** The change target a session or task-graph URI names. */
function targetOf(uri: string): ChangeTarget | undefined {
  const session = SESSION_URI.exec(uri);
  if (session) return { kind: 'session', id: session[1] };
  const tasks = TASKS_URI.exec(uri);
  return tasks ? { kind: 'tasks', project: tasks[1], id: tasks[1] } : undefined;
}
