import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../../../../src/kernel/clock';
import { UnsafePathError } from '../../../../src/kernel/errors';
import { CachingWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/caching-workflow-storage';
import { FileWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/file-workflow-storage';
import type { CatalogSnapshot, WorkflowCatalog } from '../../../../src/modules/workflow/infrastructure/workflow-catalog';
import { removeDirs, tempDir, workflow, writeJson } from './workflow-fixtures';

/** Counts how often the cached storage really goes to the folder. */
class CountingCatalog extends FileWorkflowStorage {
  loads = 0;
  override async snapshot(): Promise<CatalogSnapshot> {
    this.loads++;
    return super.snapshot();
  }
}

class ManualClock implements Clock {
  t = 1_000_000;
  now(): number {
    return this.t;
  }
}

describe('CachingWorkflowStorage', () => {
  const dirs: string[] = [];
  const caches: CachingWorkflowStorage[] = [];
  let dir: string;
  let inner: CountingCatalog;
  let clock: ManualClock;

  beforeEach(async () => {
    dir = await tempDir();
    dirs.push(dir);
    await writeJson(dir, 'alpha.json', workflow('alpha', { name: 'Alpha v1' }));
    inner = new CountingCatalog(dir, 'flag');
    clock = new ManualClock();
  });
  afterEach(async () => {
    for (const c of caches.splice(0)) c.close();
    await removeDirs(dirs);
  });

  function cache(inner: WorkflowCatalog, options: { ttlMs?: number; watch?: boolean }): CachingWorkflowStorage {
    const c = new CachingWorkflowStorage(inner, options, clock);
    caches.push(c);
    return c;
  }

  it('serves repeated calls from memory within the TTL', async () => {
    const storage = cache(inner, { ttlMs: 5000, watch: false });
    await storage.list();
    await storage.get('alpha');
    await Promise.all([storage.list(), storage.get('alpha'), storage.list()]);
    expect(inner.loads).toBe(1);
  });

  it('after the TTL, keeps the snapshot when no file changed and reloads when one did', async () => {
    const storage = cache(inner, { ttlMs: 5000, watch: false });
    expect((await storage.get('alpha')).name).toBe('Alpha v1');

    clock.t += 6000;
    expect((await storage.get('alpha')).name).toBe('Alpha v1');
    expect(inner.loads).toBe(1); // fingerprint unchanged: no reload

    await writeJson(dir, 'alpha.json', workflow('alpha', { name: 'Alpha v2, a longer name' }));
    expect((await storage.get('alpha')).name).toBe('Alpha v1'); // still within the renewed TTL
    clock.t += 6000;
    expect((await storage.get('alpha')).name).toBe('Alpha v2, a longer name');
    expect(inner.loads).toBe(2);
  });

  it('sees added and removed files after the TTL', async () => {
    const storage = cache(inner, { ttlMs: 1000, watch: false });
    expect((await storage.list()).workflows.map((w) => w.id)).toEqual(['alpha']);
    await writeJson(dir, 'beta.json', workflow('beta'));
    clock.t += 1001;
    expect((await storage.list()).workflows.map((w) => w.id)).toEqual(['alpha', 'beta']);
    await fs.rm(path.join(dir, 'alpha.json'));
    clock.t += 1001;
    expect((await storage.list()).workflows.map((w) => w.id)).toEqual(['beta']);
  });

  it('drops the snapshot as soon as the folder watcher reports a change, long before the TTL', async () => {
    const storage = cache(inner, { ttlMs: 60 * 60 * 1000, watch: true });
    expect((await storage.get('alpha')).name).toBe('Alpha v1');
    await writeJson(dir, 'alpha.json', workflow('alpha', { name: 'Alpha edited' }));

    // The watch event arrives asynchronously; the clock never moves, so only the watcher can explain a reload.
    const deadline = Date.now() + 10_000;
    let name = 'Alpha v1';
    while (name === 'Alpha v1' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      name = (await storage.get('alpha')).name;
    }
    expect(name).toBe('Alpha edited');
  });

  it('invalidate() forces a reload', async () => {
    const storage = cache(inner, { ttlMs: 60_000, watch: false });
    await storage.list();
    await writeJson(dir, 'alpha.json', workflow('alpha', { name: 'Alpha v3' }));
    storage.invalidate();
    expect((await storage.get('alpha')).name).toBe('Alpha v3');
  });

  it('checks ids before looking anything up', async () => {
    const storage = cache(inner, { ttlMs: 60_000, watch: false });
    await expect(storage.get('../alpha')).rejects.toBeInstanceOf(UnsafePathError);
  });
});
