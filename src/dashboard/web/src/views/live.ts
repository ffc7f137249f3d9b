/**
 * Whether a view must re-read what it shows, from two answers of the server's app-only `resource_changes` tool
 * (src/server/resource-changes.ts): the one it had and the new one. Pure, so it is tested on its own
 * (tests/unit/dashboard/view-live.test.ts); host.ts polls.
 */

/** The server's tool the views poll (listed to them with `_meta.ui.visibility: ["app"]`). */
export const RESOURCE_CHANGES_TOOL = 'resource_changes';

export interface ResourceChange {
  uri: string;
  changedAt: string | null;
  heardSince: string;
}

export interface ChangesAnswer {
  now: string;
  resources: ResourceChange[];
}

/**
 * The URIs to re-read: a change heard later than the one last seen, or a gap — the server (another instance, or one
 * that restarted, or whose watch lapsed) hears the resource only since after the last answer, so a change may have
 * been missed. Nothing on the first answer — the view was just handed what it shows — unless `rereadFirst`: what it
 * was handed changes every moment (a graph run still going), and a change between the result and the first answer
 * (the run's end, say, made by a process this server started hearing only now) would never be read.
 */
export function staleResources(before: ChangesAnswer | undefined, after: ChangesAnswer, rereadFirst = false): string[] {
  if (!before) return rereadFirst ? after.resources.map((r) => r.uri) : [];
  const prev = new Map(before.resources.map((r) => [r.uri, r]));
  const stale: string[] = [];
  for (const r of after.resources) {
    const p = prev.get(r.uri);
    if (!p) continue;
    const moved = r.changedAt !== null && (p.changedAt === null || r.changedAt > p.changedAt);
    const gap = r.heardSince > before.now;
    if (moved || gap) stale.push(r.uri);
  }
  return stale;
}

/** What the view keeps for the next comparison: per URI the newest change seen so far (a lagging instance never moves it back). */
export function mergeAnswers(before: ChangesAnswer | undefined, after: ChangesAnswer): ChangesAnswer {
  if (!before) return after;
  const prev = new Map(before.resources.map((r) => [r.uri, r]));
  return {
    now: after.now > before.now ? after.now : before.now,
    resources: after.resources.map((r) => {
      const p = prev.get(r.uri);
      const changedAt = p?.changedAt && (r.changedAt === null || p.changedAt > r.changedAt) ? p.changedAt : r.changedAt;
      return { ...r, changedAt };
    }),
  };
}

/** The delay before the next poll: about `base` (±20 % jitter), doubled per failure in a row up to 30 s. */
export function pollDelay(base: number, failures: number, random: () => number = Math.random): number {
  const backoff = Math.min(30_000, base * 2 ** Math.min(failures, 8));
  return Math.round(backoff * (0.8 + 0.4 * random()));
}
