import { allMigrations } from '../../../src/server/database-migrations';

/**
 * The migration runner applies a module's versions above the highest it has applied: a gap (a version landed after a
 * higher one) would never be applied to a database already past it. Every module's versions must be 1, 2, … n in order.
 */
it('each module numbers its PostgreSQL migrations 1..n without gaps, in order', () => {
  const byModule = new Map<string, number[]>();
  for (const m of allMigrations()) byModule.set(m.module, [...(byModule.get(m.module) ?? []), m.version]);
  expect(byModule.size).toBeGreaterThanOrEqual(4);
  for (const [module, versions] of byModule) expect({ module, versions }).toEqual({ module, versions: versions.map((_, i) => i + 1) });
});
