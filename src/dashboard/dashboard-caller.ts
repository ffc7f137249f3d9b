import { AsyncLocalStorage } from 'node:async_hooks';
import { LOCAL_IDENTITY, type Identity } from '../kernel/identity';

/**
 * The identity a dashboard API request runs as (its token's; the local identity for `workgraph dashboard`'s own
 * token), for the use cases the backend calls: the dashboard sees and changes what that identity may through MCP,
 * no more. Carried through the request's async work, so the backend's methods need no identity parameter.
 */
const storage = new AsyncLocalStorage<Identity>();

export function runAsDashboardCaller<T>(identity: Identity, fn: () => Promise<T>): Promise<T> {
  return storage.run(identity, fn);
}

export function dashboardCaller(): Identity {
  return storage.getStore() ?? LOCAL_IDENTITY;
}
