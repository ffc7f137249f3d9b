import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../../../src/kernel/logger';
import { SchemaRegistry } from '../../../../src/kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../../../src/modules/workflow/application/services/workflow-document-checker';
import { InvalidWorkflowError, NotFoundError } from '../../../../src/kernel/errors';
import { CachingWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/caching-workflow-storage';
import { FileWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/file-workflow-storage';
import { MultiSourceWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/multi-source-workflow-storage';
import { SchemaValidatingWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/schema-validating-workflow-storage';
import { loadWorkflowSchema } from '../../../../src/modules/workflow/infrastructure/workflow-schema-file';
import { removeDirs, tempDir, workflow, writeJson } from './workflow-fixtures';

const checker = new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema());

function recordingLogger(lines: string[]): Logger {
  const log = (msg: string) => void lines.push(msg);
  const logger: Logger = { debug: () => undefined, info: log, warn: log, error: log, child: () => logger };
  return logger;
}

describe('SchemaValidatingWorkflowStorage (over real folders)', () => {
  const dirs: string[] = [];
  afterEach(() => removeDirs(dirs));

  async function folder(): Promise<string> {
    const d = await tempDir();
    dirs.push(d);
    return d;
  }

  it('moves schema-invalid and structurally broken workflows to invalid, keeps the rest, logs one line each', async () => {
    const dir = await folder();
    await fs.copyFile(path.join(__dirname, '../../../fixtures/workflows/code-review.json'), path.join(dir, 'code-review.json'));
    await writeJson(dir, 'typo.json', { ...workflow('typo'), steps: [{ id: 's', title: 'S', promt: 'x' }] });
    await writeJson(dir, 'dupes.json', {
      ...workflow('dupes'),
      steps: [
        { id: 'a', title: 'A', prompt: 'A' },
        { id: 'a', title: 'A2', prompt: 'A2' },
      ],
    });
    await writeJson(dir, 'Bad_Id.json', workflow('Bad_Id'));
    const lines: string[] = [];
    const storage = new SchemaValidatingWorkflowStorage(new FileWorkflowStorage(dir, 'flag'), checker, recordingLogger(lines));

    const listing = await storage.list();
    expect(listing.workflows.map((w) => w.id)).toEqual(['code-review']);
    const reasons = Object.fromEntries(listing.invalid.map((e) => [e.id, e.reason]));
    expect(reasons.typo).toMatch(/\/steps\/0\/promt: is not an allowed property/);
    expect(reasons.typo).toMatch(/\/steps\/0\/prompt: is required/);
    expect(reasons.dupes).toMatch(/duplicate step id 'a'/);
    expect(reasons.Bad_Id).toMatch(/\/id: must match the pattern/);
    expect(listing.invalid.find((e) => e.id === 'typo')?.file).toBe(path.join(dir, 'typo.json'));
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => /^skipping workflow file .*\.json: /.test(l))).toBe(true);

    expect((await storage.get('code-review')).steps).toHaveLength(4);
    const err = await storage.get('typo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidWorkflowError);
    expect((err as Error).message).toMatch(/workflow 'typo' is invalid \(.*typo\.json\): .*\/steps\/0\/promt/);
    await expect(storage.get('Bad_Id')).rejects.toBeInstanceOf(InvalidWorkflowError);
    await expect(storage.get('absent')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('the production composition: an invalid override hides nothing else and is reported with its reason', async () => {
    const [bundled, flag] = [await folder(), await folder()];
    await writeJson(bundled, 'a.json', workflow('a'));
    await writeJson(bundled, 'b.json', workflow('b'));
    await writeJson(flag, 'b.json', { ...workflow('b'), version: 'latest' });
    const storage = new CachingWorkflowStorage(
      new SchemaValidatingWorkflowStorage(
        new MultiSourceWorkflowStorage([new FileWorkflowStorage(bundled, 'bundled'), new FileWorkflowStorage(flag, 'flag')]),
        checker,
      ),
      { ttlMs: 0, watch: false },
    );
    const listing = await storage.list();
    expect(listing.workflows.map((w) => w.id)).toEqual(['a']);
    expect(listing.invalid).toEqual([
      { id: 'b', file: path.join(flag, 'b.json'), source: 'flag', reason: expect.stringMatching(/\/version: must match the pattern/) },
    ]);
    await expect(storage.get('b')).rejects.toThrow(/workflow 'b' is invalid .*\/version/);

    // Fixing the file repairs the id (ttl 0: the fingerprint is checked on every call).
    await writeJson(flag, 'b.json', workflow('b', { name: 'Fixed b' }));
    expect((await storage.get('b')).name).toBe('Fixed b');
  });
});
