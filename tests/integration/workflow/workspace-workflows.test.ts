import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { AllowedRootsPolicy } from '../../../src/kernel/files/allowed-roots-policy';
import { noopCallContext } from '../../../src/kernel/call-context';
import { WorkflowDocumentChecker } from '../../../src/modules/workflow/application/services/workflow-document-checker';
import { WorkspaceWorkflows } from '../../../src/modules/workflow/application/services/workspace-workflows';
import { FileWorkflowStorage } from '../../../src/modules/workflow/infrastructure/file-workflow-storage';
import { CachingWorkflowStorage } from '../../../src/modules/workflow/infrastructure/caching-workflow-storage';
import { SchemaValidatingWorkflowStorage } from '../../../src/modules/workflow/infrastructure/schema-validating-workflow-storage';
import { FileWorkspaceWorkflowCatalogs } from '../../../src/modules/workflow/infrastructure/workspace-workflow-catalogs';
import { loadWorkflowSchema } from '../../../src/modules/workflow/infrastructure/workflow-schema-file';

/**
 * The workspace catalog chooser over real folders: the path policy decides whether a workspace's own workflows are
 * read, a workspace out of reach is said only when it has a workflow folder, and a workflow folder that links out of
 * its workspace is refused by name.
 */
const flow = (id: string) => ({ id, name: id, description: 'd', version: '1.0.0', steps: [{ id: 's', title: 'S', prompt: 'Do it.' }] });

describe('WorkspaceWorkflows over real folders', () => {
  let base: string;
  let allowed: string;
  let outside: string;
  let chooser: WorkspaceWorkflows;
  let catalogs: FileWorkspaceWorkflowCatalogs;
  beforeAll(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-wsw-')));
    allowed = path.join(base, 'allowed');
    outside = path.join(base, 'outside');
    for (const d of [path.join(allowed, 'ws', '.workgraph', 'workflows'), path.join(outside, 'ws', '.workrail', 'workflows'), path.join(outside, 'plain')]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(allowed, 'ws', '.workgraph', 'workflows', 'a.json'), JSON.stringify(flow('in-reach')));
    fs.writeFileSync(path.join(outside, 'ws', '.workrail', 'workflows', 'b.json'), JSON.stringify(flow('out-of-reach')));
    // A workspace whose .workrail/workflows links to the folder outside.
    fs.mkdirSync(path.join(allowed, 'linked', '.workrail'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'ws', '.workrail', 'workflows'), path.join(allowed, 'linked', '.workrail', 'workflows'));
    const checker = new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema());
    const bundled = new FileWorkflowStorage(path.join(__dirname, '../../../workflows'), 'bundled');
    catalogs = new FileWorkspaceWorkflowCatalogs([bundled], checker, { ttlMs: 0, clock: { now: () => Date.now() }, max: 2 });
    const global = new CachingWorkflowStorage(new SchemaValidatingWorkflowStorage(bundled, checker), { watch: false });
    chooser = new WorkspaceWorkflows(global, catalogs, new AllowedRootsPolicy([allowed]));
  });
  afterAll(() => {
    catalogs.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('reads a workspace inside the roots, with the configured sources under it', async () => {
    const got = await chooser.catalogFor(path.join(allowed, 'ws'), noopCallContext(), 'workspacePath', true);
    const ids = (await got.storage.list()).workflows.map((w) => `${w.source}:${w.id}`);
    expect(ids).toEqual(expect.arrayContaining(['workspace:in-reach', 'bundled:fix-failing-test']));
    expect(got.workspace).toBe(path.join(allowed, 'ws'));
  });

  it('out of reach: strict refuses naming the field; a session is told only when the workspace has a workflow folder', async () => {
    await expect(chooser.catalogFor(path.join(outside, 'ws'), noopCallContext(), 'workspacePath', true)).rejects.toThrow(/^workspacePath: .* is outside the allowed roots/);
    const told = await chooser.catalogFor(path.join(outside, 'ws'), noopCallContext(), 'workspacePath', false);
    expect(told.workspace).toBeUndefined();
    expect(told.warnings).toEqual([expect.stringMatching(/^the workflows of workspace .*outside.ws are not read \(workspacePath: .* is outside the allowed roots/)]);
    expect((await told.storage.list()).workflows.map((w) => w.id)).not.toContain('out-of-reach');
    const quiet = await chooser.catalogFor(path.join(outside, 'plain'), noopCallContext(), 'workspacePath', false);
    expect(quiet.warnings).toEqual([]);
  });

  it('a workflow folder that links out of its workspace is refused as one invalid entry naming it', async () => {
    const got = await chooser.catalogFor(path.join(allowed, 'linked'), noopCallContext(), 'workspacePath', true);
    const listing = await got.storage.list();
    expect(listing.workflows.map((w) => w.id)).not.toContain('out-of-reach');
    expect(listing.invalid).toEqual([
      expect.objectContaining({ source: 'workspace', file: path.join(allowed, 'linked', '.workrail', 'workflows'), reason: expect.stringMatching(/outside .*linked; refused$/) }),
    ]);
  });
});
