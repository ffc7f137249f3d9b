import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../../src/modules/workflow/application/services/workflow-document-checker';
import type { Workflow } from '../../../src/modules/workflow/domain/types';
import { CachingWorkflowStorage } from '../../../src/modules/workflow/infrastructure/caching-workflow-storage';
import { FileWorkflowStorage } from '../../../src/modules/workflow/infrastructure/file-workflow-storage';
import { InMemoryWorkflowStorage } from '../../../src/modules/workflow/infrastructure/in-memory-workflow-storage';
import { MultiSourceWorkflowStorage } from '../../../src/modules/workflow/infrastructure/multi-source-workflow-storage';
import { SchemaValidatingWorkflowStorage } from '../../../src/modules/workflow/infrastructure/schema-validating-workflow-storage';
import { loadWorkflowSchema } from '../../../src/modules/workflow/infrastructure/workflow-schema-file';
import type { WorkflowCatalog } from '../../../src/modules/workflow/infrastructure/workflow-catalog';
import { workflowCatalogContract, type CatalogHarness } from '../../contracts/workflow-catalog.contract';

/**
 * The workflow storage contract against every adapter: one folder (as the project, env and --workflows sources are
 * read), the bundled source, memory, several folders in override order, the schema check, and the whole stack the
 * server composes (cache over schema check over several folders).
 */
const checker = new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema());

async function folderHarness(seed: Workflow[], source: string, wrap: (files: FileWorkflowStorage[], dirs: string[]) => WorkflowCatalog, folders = 1): Promise<CatalogHarness> {
  const dirs = await Promise.all(Array.from({ length: folders }, () => fs.mkdtemp(path.join(os.tmpdir(), 'wg-catalog-'))));
  // Seed workflows spread over the folders; changes go to the last (the one that overrides the others).
  await Promise.all(seed.map((w, i) => fs.writeFile(path.join(dirs[i % dirs.length], `${w.id}.json`), JSON.stringify(w, null, 2))));
  const last = dirs[dirs.length - 1];
  const catalog = wrap(dirs.map((d) => new FileWorkflowStorage(d, source)), dirs);
  return {
    catalog,
    source,
    folders: dirs,
    add: (w) => fs.writeFile(path.join(last, `${w.id}.json`), JSON.stringify(w, null, 2)),
    remove: async (id) => {
      for (const d of dirs) await fs.rm(path.join(d, `${id}.json`), { force: true });
    },
    addBroken: (name, text) => fs.writeFile(path.join(last, name), text),
    cleanup: async () => {
      (catalog as Partial<CachingWorkflowStorage>).close?.();
      await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
    },
  };
}

const folder = workflowCatalogContract('a folder (FileWorkflowStorage)', (seed) => folderHarness(seed, 'flag', ([f]) => f));
const bundled = workflowCatalogContract('the bundled source (FileWorkflowStorage, source bundled)', (seed) => folderHarness(seed, 'bundled', ([f]) => f));
const several = workflowCatalogContract('several folders (MultiSourceWorkflowStorage)', (seed) => folderHarness(seed, 'project', (files) => new MultiSourceWorkflowStorage(files), 2));
const schema = workflowCatalogContract('the schema check (SchemaValidatingWorkflowStorage)', (seed) =>
  folderHarness(seed, 'env', ([f]) => new SchemaValidatingWorkflowStorage(f, checker)),
);
const stack = workflowCatalogContract('the stack the server composes (CachingWorkflowStorage over the schema check over several folders)', (seed) =>
  folderHarness(seed, 'flag', (files) => new CachingWorkflowStorage(new SchemaValidatingWorkflowStorage(new MultiSourceWorkflowStorage(files), checker), { ttlMs: 0, watch: false }), 2),
);
const memory = workflowCatalogContract('memory (InMemoryWorkflowStorage)', async (seed) => {
  const catalog = new InMemoryWorkflowStorage(seed);
  return {
    catalog,
    source: 'memory',
    folders: [],
    add: async (w) => catalog.put(w),
    remove: async (id) => void catalog.remove(id),
  };
});

// Registered last, so it runs after the suites: each ran every case, against the adapter (the outermost one of a stack) meant.
it('ran every case of the contract against each adapter', () => {
  const runs = [folder, bundled, several, schema, stack, memory];
  expect(folder.cases.length).toBeGreaterThanOrEqual(15);
  for (const r of runs) expect(r.cases).toEqual(folder.cases);
  expect(runs.map((r) => [...r.adapters])).toEqual([
    [FileWorkflowStorage.name],
    [FileWorkflowStorage.name],
    [MultiSourceWorkflowStorage.name],
    [SchemaValidatingWorkflowStorage.name],
    [CachingWorkflowStorage.name],
    [InMemoryWorkflowStorage.name],
  ]);
});
