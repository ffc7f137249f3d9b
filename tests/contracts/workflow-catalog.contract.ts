import { ContractRun } from './contract-run';
import { InvalidWorkflowError, NotFoundError, UnsafePathError } from '../../src/kernel/errors';
import type { WorkflowCatalog } from '../../src/modules/workflow/infrastructure/workflow-catalog';
import type { Workflow } from '../../src/modules/workflow/domain/types';

/** What a contract run asks an adapter to hold, and how it changes it. */
export interface CatalogHarness {
  catalog: WorkflowCatalog;
  /** The source label the adapter reports (`bundled`, `flag`, `memory`, …). */
  source: string;
  /** Adds (or replaces) a workflow the way this adapter's data changes: a file written, an entry put. */
  add(workflow: Workflow): Promise<void>;
  /** Removes a workflow by id. */
  remove(id: string): Promise<void>;
  /** Adds a file that cannot be used as a workflow (when the adapter reads files); undefined when it cannot hold one. */
  addBroken?(fileName: string, text: string): Promise<void>;
  /** The folders the adapter must report for change detection. */
  folders: string[];
  cleanup?: () => Promise<void>;
}

/** Two workflows every adapter starts with. */
export function seedWorkflows(): Workflow[] {
  return [
    {
      id: 'alpha',
      name: 'Alpha',
      description: 'Plans and checks',
      version: '1.0.0',
      steps: [
        { id: 'plan', title: 'Plan', prompt: 'Plan the change' },
        { id: 'check', title: 'Check', prompt: 'Check it', requireConfirmation: true },
      ],
    },
    { id: 'beta', name: 'Beta', description: 'One step', version: '2.1.0', steps: [{ id: 'only', title: 'Only', prompt: 'Do it' }] },
  ];
}

/**
 * The contract of the workflow storage port (WorkflowStorage, as WorkflowCatalog adds snapshot() and folders() for
 * the decorators): what every adapter — a folder, the bundled folder, memory, several sources, the schema check and
 * the cache over them — must do, run against each of them by tests/integration/workflow/workflow-catalog.contract.test.ts.
 * `make(seed)` gives an adapter holding the seed workflows.
 */
export function workflowCatalogContract(name: string, make: (seed: Workflow[]) => Promise<CatalogHarness>): ContractRun {
  const run = new ContractRun(`WorkflowStorage contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let h: CatalogHarness;
    beforeEach(async () => {
      h = await make(seedWorkflows());
      run.met(h.catalog);
    });
    afterEach(async () => h.cleanup?.());

    it('lists every workflow once with its id, name, description, version and source', async () => {
      const { workflows, invalid } = await h.catalog.list();
      expect(invalid).toEqual([]);
      expect([...workflows].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'alpha', name: 'Alpha', description: 'Plans and checks', version: '1.0.0', source: h.source },
        { id: 'beta', name: 'Beta', description: 'One step', version: '2.1.0', source: h.source },
      ]);
    });

    it('gets a workflow by id with its steps as stored', async () => {
      const alpha = await h.catalog.get('alpha');
      expect(alpha).toMatchObject({ id: 'alpha', name: 'Alpha', version: '1.0.0' });
      expect(alpha.steps).toEqual(seedWorkflows()[0].steps);
    });

    it('locates a workflow with its source (and its file, when it came from one in the folders)', async () => {
      const located = await h.catalog.locate('beta');
      expect(located.workflow).toMatchObject({ id: 'beta', version: '2.1.0' });
      expect(located.source).toBe(h.source);
      if (h.folders.length) expect(h.folders.some((d) => located.file?.startsWith(d))).toBe(true);
      else expect(located.file).toBeUndefined();
      await expect(h.catalog.locate('gamma')).rejects.toBeInstanceOf(NotFoundError);
      await expect(h.catalog.locate('../beta')).rejects.toBeInstanceOf(UnsafePathError);
    });

    it('looks up the workflow documents by id, as stored', async () => {
      const documents = await h.catalog.documents();
      expect(documents('alpha')).toMatchObject({ id: 'alpha', steps: seedWorkflows()[0].steps });
      expect(documents('gamma')).toBeUndefined();
    });

    it('answers not found for an unknown id, naming it', async () => {
      const err = await h.catalog.get('gamma').catch((e) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.message).toContain("'gamma'");
    });

    for (const id of ['../alpha', 'a/b', 'a\\b', '/etc/passwd', 'x\0y', '..']) {
      it(`refuses the id ${JSON.stringify(id)} before any lookup`, async () => {
        await expect(h.catalog.get(id)).rejects.toBeInstanceOf(UnsafePathError);
      });
    }

    it('snapshot() and list() agree, and every snapshot entry carries its source', async () => {
      const snap = await h.catalog.snapshot();
      const listed = await h.catalog.list();
      expect(snap.workflows.map((e) => e.workflow.id).sort()).toEqual(listed.workflows.map((w) => w.id).sort());
      for (const e of snap.workflows) expect(e.source).toBe(h.source);
      expect(snap.invalid).toEqual(listed.invalid);
    });

    it('reports the folders it reads', () => {
      expect(h.catalog.folders()).toEqual(h.folders);
    });

    it('sees a workflow added, replaced and removed after the first read', async () => {
      await h.catalog.list();
      await h.add({ id: 'gamma', name: 'Gamma', description: 'New', version: '0.1.0', steps: [{ id: 's', title: 'S', prompt: 'P' }] });
      expect((await h.catalog.get('gamma')).version).toBe('0.1.0');
      await h.add({ id: 'gamma', name: 'Gamma', description: 'Newer', version: '0.2.0', steps: [{ id: 's', title: 'S', prompt: 'P' }] });
      expect((await h.catalog.get('gamma')).version).toBe('0.2.0');
      await h.remove('alpha');
      expect((await h.catalog.list()).workflows.map((w) => w.id).sort()).toEqual(['beta', 'gamma']);
      await expect(h.catalog.get('alpha')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('reports a file that cannot be used under invalid, with its file and reason, and get of its id says why', async () => {
      if (!h.addBroken) {
        // Memory holds parsed workflows only: there is no file to be broken.
        expect(h.catalog.folders()).toEqual([]);
        return;
      }
      await h.addBroken('delta.json', '{"id": "delta", "name": ');
      const { workflows, invalid } = await h.catalog.list();
      expect(workflows.map((w) => w.id).sort()).toEqual(['alpha', 'beta']);
      expect(invalid).toHaveLength(1);
      expect(invalid[0]).toMatchObject({ id: 'delta', source: h.source });
      expect(invalid[0].file).toMatch(/delta\.json$/);
      expect(invalid[0].reason).toMatch(/invalid JSON at line 1/);
      const err = await h.catalog.get('delta').catch((e) => e);
      expect(err).toBeInstanceOf(InvalidWorkflowError);
      expect(err.message).toContain('invalid JSON');
    });
  });
  return run;
}
