import type { ChangeEvent, ChangeEvents, ChangeTarget } from '../kernel/change-events';
import { changeInReach, type ChangeReacher } from '../kernel/change-reach';
import { InvalidArgumentsError, ResourceLimitError } from '../kernel/errors';
import type { Identity } from '../kernel/identity';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import { EXPECTED_URIS, resourceTargetOf } from './resource-uris';

/**
 * How an MCP Apps view stays live (docs/mcp-apps.md "Live views"). The extension lets a view call the server's tools
 * and read its resources through the host, but not subscribe to a resource: a host forwards neither
 * `resources/subscribe` nor `notifications/resources/updated` to a view (the 2026-01-26 extension spec lists
 * `tools/call`, `tools/list` and `resources/read`). So a view asks, every few seconds, when the resources it shows
 * last changed — a call of the app-only tool below, whose answer is a few dozen bytes whatever the resource's size —
 * and re-reads a resource only when its change time moved.
 *
 * One log per process (per change-event port): the time of the last change heard to each resource, from every
 * change this process's stores publish, and — in a file data dir, where other processes' changes are heard only for
 * watched targets — a watch on each resource a view asked about, kept while it keeps asking (a lease renewed by each
 * call). A change is told only to a caller whose identity reaches it, as a resource subscription would be.
 */

/** The app-only tool's name (listed only to hosts that show views, with `_meta.ui.visibility: ["app"]`). */
export const RESOURCE_CHANGES_TOOL = 'resource_changes';

/** A watch lives this long after the last call that named its resource. */
export const LEASE_MS = 60_000;
/** Watched resources one process holds at most (each is a watch on the data dir). */
export const MAX_LEASES = 1_000;
/** Resources whose last change is remembered (the oldest is forgotten first; it then reads as never changed). */
const MAX_REMEMBERED = 10_000;
const MAX_PER_CALL = 20;

export interface ResourceChange {
  uri: string;
  /** When this server last heard a change to it (the change's own time), or null: none heard since `heardSince`. */
  changedAt: string | null;
  /** Since when this server hears every change to it: a later time than the caller's last answer means a gap. */
  heardSince: string;
}

export interface ResourceChangesAnswer {
  /** The server's time of this answer. */
  now: string;
  resources: ResourceChange[];
}

interface Lease {
  stop: () => void;
  since: number;
  until: number;
  /** The identities found to reach the resource (by name): their calls renew the watch without asking again. */
  reached: Set<string>;
}

/** The key a target and a change event share: a session's or a graph run's id, a project's for its tasks or knowledge. */
function keyOf(t: ChangeTarget): string {
  return `${t.kind}:${t.kind === 'session' || t.kind === 'graph-run' ? t.id : (t.project ?? t.id)}`;
}

export class ResourceChangeLog {
  private readonly latest = new Map<string, ChangeEvent>();
  private readonly leases = new Map<string, Lease>();
  private readonly since: number;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly events: ChangeEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
    events.subscribe((e) => this.heard(e));
  }

  /**
   * When each of `uris` last changed, as far as `identity` may know; keeps (or starts) hearing other processes'
   * changes to them for {@link LEASE_MS}. Each URI must name a resource of the modules served.
   */
  async changes(uris: readonly string[], modules: readonly string[], identity: Identity, reachers: () => readonly ChangeReacher[]): Promise<ResourceChangesAnswer> {
    const targets = uris.map((uri, i) => {
      const target = resourceTargetOf(uri, modules);
      if (!target) {
        throw new InvalidArgumentsError(
          `resources/${i}: ${JSON.stringify(uri)} is not a resource this server serves; expected ${EXPECTED_URIS}`,
          `/resources/${i}`,
        );
      }
      return target;
    });
    // A watch is started or renewed only for a resource the caller reaches (one that does not exist is not): nobody
    // can fill the watches with names of things they cannot see, nor learn that someone watches one. Asked once per
    // identity and watch.
    const reached = await Promise.all(targets.map(async (t) => !this.events.watch || this.allowed(t, identity) || (await changeInReach(reachers, t, identity))));
    const now = this.now();
    const since = targets.map((t, i) => (reached[i] ? this.lease(t, now, identity) : now));
    const resources = await Promise.all(
      targets.map(async (t, i) => {
        const e = this.latest.get(keyOf(t));
        const known = reached[i] && e !== undefined && Date.parse(e.at) >= since[i] && (await changeInReach(reachers, e, identity));
        return { uri: uris[i], changedAt: known ? e.at : null, heardSince: new Date(since[i]).toISOString() };
      }),
    );
    return { now: new Date(now).toISOString(), resources };
  }

  /** Resources watched now (for tests). */
  get watched(): number {
    return this.leases.size;
  }

  private heard(e: ChangeEvent): void {
    const key = keyOf(e);
    const before = this.latest.get(key);
    // A change heard late (another host's clock) never moves the time back.
    if (before && before.at > e.at) return;
    this.latest.delete(key);
    this.latest.set(key, e);
    if (this.latest.size > MAX_REMEMBERED) this.latest.delete(this.latest.keys().next().value!);
  }

  /** Whether `t` is watched now (its lease not run out) and `identity` was found to reach it. */
  private allowed(t: ChangeTarget, identity: Identity): boolean {
    const held = this.leases.get(keyOf(t));
    return held !== undefined && held.until > this.now() && held.reached.has(identity.name);
  }

  /** Renews (or starts) the watch of `t`; returns since when its changes are all heard. */
  private lease(t: ChangeTarget, now: number, identity: Identity): number {
    const key = keyOf(t);
    const held = this.leases.get(key);
    if (held && held.until > now) {
      held.until = now + LEASE_MS;
      held.reached.add(identity.name);
      return held.since;
    }
    if (held) this.drop(key, held);
    // A port that hears every change anyway (in-process alone, PostgreSQL's LISTEN) has no watch: heard since start.
    if (!this.events.watch) return this.since;
    if (this.leases.size >= MAX_LEASES) {
      throw new ResourceLimitError('watched resources', MAX_LEASES, `this server watches ${MAX_LEASES} resources for views, the most it may; a view's watch ends ${LEASE_MS / 1000} s after its last call`);
    }
    const stop = this.events.watch(t);
    this.leases.set(key, { stop, since: now, until: now + LEASE_MS, reached: new Set([identity.name]) });
    this.sweep();
    return now;
  }

  private drop(key: string, lease: Lease): void {
    lease.stop();
    this.leases.delete(key);
  }

  /** Ends the watches nobody renewed, every half lease while any is held. */
  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = this.now();
      for (const [key, lease] of this.leases) if (lease.until <= now) this.drop(key, lease);
      if (this.leases.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, LEASE_MS / 2);
    this.sweeper.unref();
  }
}

const logs = new WeakMap<ChangeEvents, ResourceChangeLog>();

/** The process's log for this change-event port, started by the first call that needs it. */
export function resourceChangeLog(events: ChangeEvents): ResourceChangeLog {
  let log = logs.get(events);
  if (!log) logs.set(events, (log = new ResourceChangeLog(events)));
  return log;
}

/** Whether views can be kept live with these modules: some view shows a resource they serve. */
export function watchableModules(modules: readonly string[]): boolean {
  return modules.includes('workflow') || modules.includes('tasks') || modules.includes('knowledge') || modules.includes('graph');
}

/**
 * The app-only tool a view polls (through the host's `tools/call`): when each of the resources it shows last changed.
 * Not in the tool registry: listed and callable only for a host that shows views (mcp-server.ts), with
 * `_meta.ui.visibility: ["app"]` so the host keeps it from the model. Its declaration, without the handler (which
 * needs the process's log), is what spec/mcp-api.md documents.
 */
export const RESOURCE_CHANGES_DECLARATION: Omit<ToolDefinition, 'handler' | 'useCase'> = {
  name: RESOURCE_CHANGES_TOOL,
  title: 'Resource changes (for views)',
  description:
    'When each of the named workgraph:// resources last changed (null: not since heardSince). For MCP Apps views, listed only to hosts that show them (`_meta.ui.visibility: ["app"]`): a view calls it every few seconds and re-reads a resource when its changedAt moves, or when heardSince is later than its last answer\'s now (changes may have been missed). Each call keeps the server hearing other processes\' changes to them for 60 s.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['resources'],
    properties: {
      resources: { type: 'array', minItems: 1, maxItems: MAX_PER_CALL, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['now', 'resources'],
    properties: {
      now: { type: 'string' },
      resources: {
        type: 'array',
        items: {
          type: 'object',
          required: ['uri', 'changedAt', 'heardSince'],
          properties: { uri: { type: 'string' }, changedAt: { type: ['string', 'null'] }, heardSince: { type: 'string' } },
        },
      },
    },
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  module: 'server',
};

/** The tool, answered from the process's log by `changes`. */
export function resourceChangesTool(changes: (uris: string[], identity: Identity) => Promise<ResourceChangesAnswer>): ToolDefinition {
  // The dispatcher has checked the input against the schema: `resources` is a list of strings.
  return { ...RESOURCE_CHANGES_DECLARATION, handler: (input, ctx) => changes((input as { resources: string[] }).resources, ctx.identity) };
}

/** The `_meta` of the tool in tools/list: the host calls it for views only, never shows it to the model. */
export const RESOURCE_CHANGES_META = { ui: { visibility: ['app'] } };
