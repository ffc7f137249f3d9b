import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

type Get = { referenceStatus?: Array<{ id: string; resolveFrom: string; path?: string; found?: boolean }>; warnings?: string[] };
type Validated = { valid: boolean; issues: Array<{ path: string; line: number; column: number; message: string }>; warnings?: Array<{ path: string; line: number; column: number; message: string }> };

/**
 * Current-format workflows through the built server: templateCall routines are looked up in the server's workflow
 * folders by workflow_validate_json too, and `references` are resolved (package: the file's folder; workspace: the
 * workspacePath given, else the client's first root) and missing ones flagged by workflow_get and workflow_start.
 */
describe('current-format references and routines (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let wfDir: string;
  let root: string;
  const fixture = path.join(__dirname, '../fixtures/workflows-current');

  beforeAll(async () => {
    tmp = tempDir();
    wfDir = path.join(tmp.dir, 'workflows');
    root = path.join(tmp.dir, 'project');
    fs.mkdirSync(path.join(wfDir, 'routines'), { recursive: true });
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'PLAN.md'), '# plan\n');
    fs.copyFileSync(path.join(fixture, 'routines/checklist.json'), path.join(wfDir, 'routines/checklist.json'));
    const release = JSON.parse(fs.readFileSync(path.join(fixture, 'release-check.json'), 'utf8'));
    release.references.push({ id: 'plan', source: 'PLAN.md', resolveFrom: 'workspace' }, { id: 'notes', source: 'NOTES.md', resolveFrom: 'workspace' });
    fs.writeFileSync(path.join(wfDir, 'release-check.json'), JSON.stringify(release, null, 2));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', wfDir], capabilities: { roots: {} } });
    conn.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(root).href, name: 'project' }] }));
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('workflow_list and workflow_get serve the current-format metadata; the routine in a subfolder is listed too', async () => {
    const list = (await conn.client.callTool({ name: 'workflow_list', arguments: {} })).structuredContent as { workflows: Array<Record<string, unknown>> };
    expect(list.workflows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'wg.release-check', format: 'current', tags: ['release'], about: 'Walks a release candidate from scope to verdict.' }),
        expect.objectContaining({ id: 'wr.routine-checklist', source: 'flag' }),
      ]),
    );
    const meta = (await conn.client.callTool({ name: 'workflow_get', arguments: { id: 'wg.release-check', mode: 'metadata' } })).structuredContent as Record<string, unknown>;
    expect(meta).toMatchObject({
      format: 'current',
      about: 'Walks a release candidate from scope to verdict.',
      examples: ['Check release 2.4.0'],
      recommendedPreferences: { recommendedAutonomy: 'guided' },
      validatedAgainstSpecVersion: 3,
      tags: ['release'],
      metricsProfile: 'review',
      references: expect.arrayContaining([expect.objectContaining({ id: 'policy', source: 'routines/checklist.json', resolveFrom: 'package' })]),
    });
    expect(meta.steps).toBeUndefined();
  });

  it('workflow_get resolves references against the file folder and the first client root, flagging missing ones', async () => {
    const r = await conn.client.callTool({ name: 'workflow_get', arguments: { id: 'wg.release-check', mode: 'metadata' } });
    expect(r.isError).toBeFalsy();
    const got = r.structuredContent as Get;
    expect(got.referenceStatus).toEqual([
      { id: 'policy', resolveFrom: 'package', path: path.join(wfDir, 'routines/checklist.json'), found: true },
      { id: 'missing', resolveFrom: 'package', path: path.join(wfDir, 'docs/nowhere.md'), found: false },
      { id: 'plan', resolveFrom: 'workspace', path: path.join(root, 'PLAN.md'), found: true },
      { id: 'notes', resolveFrom: 'workspace', path: path.join(root, 'NOTES.md'), found: false },
    ]);
    expect(got.warnings).toEqual([
      `reference 'missing' (package) not found: ${path.join(wfDir, 'docs/nowhere.md')}`,
      `reference 'notes' (workspace) not found: ${path.join(root, 'NOTES.md')}`,
    ]);
    // The content is never inlined.
    expect(JSON.stringify(r.structuredContent)).not.toContain('Checklist routine');
  });

  it('workflow_get takes workspacePath over the client root (the whole workflow too)', async () => {
    const other = path.join(tmp.dir, 'other');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'NOTES.md'), 'n');
    const r = await conn.client.callTool({ name: 'workflow_get', arguments: { id: 'wg.release-check', workspacePath: other } });
    const got = r.structuredContent as Get & { steps: unknown[] };
    expect(got.steps.length).toBeGreaterThan(0);
    expect(got.referenceStatus?.filter((s) => s.resolveFrom === 'workspace')).toEqual([
      { id: 'plan', resolveFrom: 'workspace', path: path.join(other, 'PLAN.md'), found: false },
      { id: 'notes', resolveFrom: 'workspace', path: path.join(other, 'NOTES.md'), found: true },
    ]);
  });

  it('workflow_start flags missing references against the session workspacePath, else the first client root', async () => {
    const other = path.join(tmp.dir, 'other');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'NOTES.md'), 'n');
    const own = (await conn.client.callTool({ name: 'workflow_start', arguments: { workflowId: 'wg.release-check', workspacePath: other, context: { version: '1' } } })).structuredContent as { status: string; warnings?: string[] };
    expect(own.status).toBe('started');
    expect(own.warnings).toEqual([`reference 'missing' (package) not found: ${path.join(wfDir, 'docs/nowhere.md')}`, `reference 'plan' (workspace) not found: ${path.join(other, 'PLAN.md')}`]);
    const byRoot = (await conn.client.callTool({ name: 'workflow_start', arguments: { workflowId: 'wg.release-check', context: { version: '1' } } })).structuredContent as { warnings?: string[] };
    expect(byRoot.warnings).toEqual([`reference 'missing' (package) not found: ${path.join(wfDir, 'docs/nowhere.md')}`, `reference 'notes' (workspace) not found: ${path.join(root, 'NOTES.md')}`]);
  });

  it('workflow_validate_json finds templateCall routines in the server folders, and names one it cannot find', async () => {
    const text = fs.readFileSync(path.join(wfDir, 'release-check.json'), 'utf8');
    const ok = (await conn.client.callTool({ name: 'workflow_validate_json', arguments: { workflowJson: text } })).structuredContent as Validated;
    expect(ok.issues).toEqual([]);
    expect(ok.valid).toBe(true);
    // Workspace references resolve against the client's first root, with the line:col of their source.
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('"NOTES.md"')) + 1;
    expect(ok.warnings).toEqual(
      expect.arrayContaining([
        { path: '/references/3/source', line, column: lines[line - 1].indexOf('"NOTES.md"') + 1, message: `reference 'notes' (workspace) not found: ${path.join(root, 'NOTES.md')}` },
      ]),
    );
    const bad = JSON.parse(text);
    bad.steps.find((s: { id: string }) => s.id === 'api').templateCall.templateId = 'wr.templates.routine.nosuch';
    const refused = (await conn.client.callTool({ name: 'workflow_validate_json', arguments: { workflowJson: JSON.stringify(bad, null, 2) } })).structuredContent as Validated;
    expect(refused.valid).toBe(false);
    expect(refused.issues.map((i) => i.message).join('\n')).toMatch(/wr\.routine-nosuch/);
  });
});
