import { ProtocolError, type Server } from '@modelcontextprotocol/server';
import type { ChangeEvent, ChangeEvents } from '../kernel/change-events';
import { LOCAL_IDENTITY, type Identity } from '../kernel/identity';
import { ResourceLimitError } from '../kernel/errors';
import { changeInReach, type ChangeReacher } from '../kernel/change-reach';
import { callerIdentity } from './caller-identity';
import { toJsonRpcError } from './error-mapper';
import { JsonRpcErrorCodes } from './json-rpc-codes';
import { knowledgeProjectOf, knowledgeTarget } from './knowledge-resources';
import { graphRunTarget, graphRunUri } from './graph-run-resources';
import { authOf } from './resource-call';
import { EXPECTED_URIS, resourceUriOf, sessionOrTasksTarget } from './resource-uris';
import type { ListenedResources } from './listened-resources';

export const DEFAULT_MAX_SUBSCRIPTIONS = 1_000;

/** What a session's subscriptions need: the change events, the modules served, the caller and its reach. */
export interface SubscriptionDeps {
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
}

/**
 * resources/subscribe and unsubscribe of one client session, and its listener on the process's change events: a
 * change to a subscribed resource (legacy era) — or any change (modern era: the SDK's listen routing picks who hears
 * it) — within the subscriber's reach becomes `notifications/resources/updated`. Returns the function that removes the
 * session's listener and watches (call it when the session closes).
 */
export function installSubscriptions(sdk: Server, deps: SubscriptionDeps, served: { knowledgeServed: boolean; graphServed: boolean }): () => void {
  const { knowledgeServed, graphServed } = served;
  /**
   * This session's subscriptions, each with the function that stops hearing other processes' changes to it. Bounded
   * (`maxSubscriptions`), and looked up by URI: a change event costs this session one map lookup however many it holds.
   */
  const subscribed = new Map<string, { stop: () => void; identity: Identity }>();
  const max = deps.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS;
  const reachers = deps.reachers ?? (() => []);
  sdk.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const uri = request.params.uri;
    const target = sessionOrTasksTarget(uri) ?? (knowledgeServed ? knowledgeTarget(uri) : undefined) ?? (graphServed ? graphRunTarget(uri) : undefined);
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
