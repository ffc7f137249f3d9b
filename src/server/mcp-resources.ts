import { ProtocolError, type Server } from '@modelcontextprotocol/server';
import type { InjectionToken } from 'tsyringe';
import { LOCAL_IDENTITY } from '../kernel/identity';
import { callerIdentity } from './caller-identity';
import { WorkflowTokens, type ListSessionsOutput, type SessionTimeline } from '../modules/workflow';
import { TasksTokens, type ProjectGraphView, type TaskProjectSummary } from '../modules/tasks';
import { JsonRpcErrorCodes } from './json-rpc-codes';
import { readView, viewResources, type AppsPolicy } from './mcp-apps';
import type { AppView } from '../kernel/tools/app-views';
import type { ServerContext } from '@modelcontextprotocol/server';
import { knowledgeResourceTemplates, listKnowledgeResources, readKnowledgeResource } from './knowledge-resources';
import { graphRunResourceTemplates, listGraphRunResources, readGraphRunResource } from './graph-run-resources';
import { authOf, resourceCall, type ResourceCall } from './resource-call';
import { installPrompts } from './workflow-prompts';
import { installSubscriptions, type SubscriptionDeps } from './resource-subscriptions';
import { EXPECTED_URIS, SESSION_PAGE_URI, TASKS_URI } from './resource-uris';

/**
 * MCP prompts and resources (the server's side; installed per client session): prompts from workflow-prompts.ts, the
 * resources listed, templated and read here, subscriptions in resource-subscriptions.ts, the URIs in resource-uris.ts.
 */

export interface PromptsAndResourcesDeps extends SubscriptionDeps {
  /** Resolves a use case from the (lazily built) container. */
  resolve: <T>(token: InjectionToken<T>) => T;
  /** MCP Apps views (mcp-apps.ts): listed and read only for a request whose client `showsViews`. */
  apps?: {
    policy: AppsPolicy;
    views: readonly AppView[];
    showsViews: (ctx: ServerContext) => boolean;
    /** The views' app-only resource_changes tool is served: they poll it to stay live (resource-changes.ts). */
    live: boolean;
  };
}

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
  const call = resourceCall(deps.resolve, deps.caller);

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

function installResources(sdk: Server, call: ResourceCall, deps: PromptsAndResourcesDeps, served: Served): () => void {
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

  return installSubscriptions(sdk, deps, { knowledgeServed, graphServed });
}
