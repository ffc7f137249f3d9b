import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';
import { call, expectRefused, type Conn } from './helpers/tool-refusals';

/**
 * The trust boundary (DESIGN.md §2, §4 "bad input") through the built server and a real client: names and paths an
 * agent sends with `..`, absolute paths, NUL bytes, symlinks pointing out, and folders outside the allowed roots are
 * refused with a clear error naming the field — and nothing is read or written outside where it belongs; what a
 * validation command gets. (How client MCP roots and the operator's roots combine: security-roots.test.ts.)
 */

/** Every file under `dir` (relative paths), following no symlinks. */
function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = e.name;
    if (e.isDirectory()) out.push(...listTree(path.join(dir, rel)).map((r) => path.join(rel, r)));
    else out.push(rel);
  }
  return out.sort();
}

describe('security: paths and names from the agent (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let allowed: string;
  let outside: string;
  let dataDir: string;
  let workflowsDir: string;
  let conn: Conn;

  beforeAll(async () => {
    tmp = tempDir('wg-sec-');
    allowed = path.join(tmp.dir, 'allowed');
    outside = path.join(tmp.dir, 'outside');
    dataDir = path.join(tmp.dir, 'data');
    workflowsDir = path.join(tmp.dir, 'workflows');
    for (const d of [allowed, outside, workflowsDir]) fs.mkdirSync(d);
    // A valid workflow outside the workflow folder, reached through a symlink inside it.
    const outsideWorkflow = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../workflows/fix-failing-test.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(outside, 'secret.json'), JSON.stringify({ ...outsideWorkflow, id: 'secret-outside' }));
    fs.symlinkSync(path.join(outside, 'secret.json'), path.join(workflowsDir, 'linked.json'));
    fs.writeFileSync(path.join(workflowsDir, 'inside.json'), JSON.stringify({ ...outsideWorkflow, id: 'inside-ok' }));
    // A symlink inside the allowed root pointing out of it.
    fs.symlinkSync(outside, path.join(allowed, 'escape'));
    conn = await connectClient({ dataDir, args: ['--allow-root', allowed, '--workflows', workflowsDir] });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  describe('workflow ids', () => {
    it.each([
      ['../../etc/passwd', 'unsafe_path'],
      ['fix-failing-test/../secret', 'unsafe_path'],
      ['/etc/passwd', 'unsafe_path'],
      ['..', 'unsafe_path'],
      ['a\0b', 'unsafe_path'],
    ])('workflow_get/workflow_next refuse %j', async (id, code) => {
      expectRefused(await call(conn, 'workflow_get', { id }), code, 'id');
      expectRefused(await call(conn, 'workflow_next', { workflowId: id, completedSteps: [] }), code);
    });

    it('a workflow file symlinked from outside its folder is not served, and workflow_list says why', async () => {
      const list = (await call(conn, 'workflow_list', {})).structuredContent as { workflows: Array<{ id: string }>; invalid: Array<{ file: string; reason: string }> };
      expect(list.workflows.map((w) => w.id)).toContain('inside-ok');
      expect(list.workflows.map((w) => w.id)).not.toContain('secret-outside');
      const entry = list.invalid.find((i) => i.file.endsWith('linked.json'));
      expect(entry?.reason).toMatch(/symlink resolves outside the workflow folder/);
      const get = await call(conn, 'workflow_get', { id: 'secret-outside' });
      expect(get.isError).toBe(true);
      expect(get.content[0].text).not.toContain('Reproduce the failure'); // the outside file's content never leaks
    });
  });

  describe('scaffold_project_docs file names', () => {
    const base = { architectureContent: 'a', testCasesContent: 't' };
    it.each([
      ['../escaped.md', 'escapes its folder'],
      ['sub/../../escaped.md', 'escapes its folder'],
      ['/tmp/absolute.md', 'absolute path'],
      ['C:\\absolute.md', 'absolute path'],
      ['bad\0name.md', 'NUL'],
      ['escape/through-link.md', 'outside'],
    ])('refuses %j and writes nothing', async (fileName, why) => {
      const target = path.join(allowed, 'docs-' + Buffer.from(fileName).toString('hex').slice(0, 16));
      fs.mkdirSync(target);
      fs.symlinkSync(outside, path.join(target, 'escape'));
      const before = listTree(outside);
      const r = await call(conn, 'scaffold_project_docs', { ...base, targetDirectory: target, phaseTasks: [{ fileName, content: 'x' }] });
      expectRefused(r, r._meta?.['workgraph/errorCode'] as string, why);
      expect(['unsafe_path', 'path_not_allowed', 'invalid_arguments']).toContain(r._meta?.['workgraph/errorCode']);
      expect(listTree(outside)).toEqual(before);
      expect(fs.existsSync(path.join(target, 'ARCHITECTURE.md'))).toBe(false); // all or nothing
      expect(fs.existsSync(path.join(allowed, 'escaped.md'))).toBe(false);
    });

    it('refuses a targetDirectory outside the allowed roots, directly or through a symlink', async () => {
      for (const targetDirectory of [outside, path.join(allowed, 'escape'), path.join(allowed, '..', 'outside'), '/etc']) {
        const r = await call(conn, 'scaffold_project_docs', { ...base, targetDirectory, phaseTasks: [] });
        expectRefused(r, 'path_not_allowed', 'targetDirectory');
      }
      expect(listTree(outside)).toEqual(['secret.json']);
    });
  });

  describe('project names and projectRoot (tasks)', () => {
    const nodes = [{ id: 'a', title: 'A', validation_command: 'true' }];
    it.each([['!!!'], ['...'], ['   '], ['../..'], ['---']])('refuses the project name %j that slugs to nothing', async (projectName) => {
      expectRefused(await call(conn, 'init_project_graph', { projectName, projectRoot: allowed, nodes }), 'invalid_arguments', 'projectName', 'project id');
    });

    it('refuses a project name with a NUL byte', async () => {
      expectRefused(await call(conn, 'init_project_graph', { projectName: 'a\0b', projectRoot: allowed, nodes }), 'invalid_arguments', 'projectName', 'NUL');
    });

    it('a project name with .. and / still lands in <data-dir>/projects/<slug>/', async () => {
      const r = await call(conn, 'init_project_graph', { projectName: '../../../escape/me', projectRoot: allowed, nodes });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent!.project_id).toBe('escape-me');
      expect(fs.existsSync(path.join(dataDir, 'projects', 'escape-me', 'task_graph.json'))).toBe(true);
      expect(listTree(tmp.dir).filter((f) => f.endsWith('task_graph.json'))).toEqual([path.join('data', 'projects', 'escape-me', 'task_graph.json')]);
    });

    it.each([
      ['outside the allowed roots', () => outside, 'path_not_allowed'],
      ['through a symlink out of the allowed root', () => path.join(allowed, 'escape'), 'path_not_allowed'],
      ['with .. segments leaving the root', () => path.join(allowed, '..', 'outside'), 'path_not_allowed'],
      ['relative', () => 'allowed', 'invalid_arguments'],
      ['with a NUL byte', () => `${allowed}\0x`, 'unsafe_path'],
    ])('refuses a projectRoot %s', async (_what, root, code) => {
      expectRefused(await call(conn, 'init_project_graph', { projectName: 'roots', projectRoot: root(), nodes, replace: true }), code, 'projectRoot');
    });
  });

  describe('knowledge projectContext', () => {
    it('.. segments never leave <data-dir>/projects/', async () => {
      for (const projectContext of ['/work/../../../../etc', '../../outside', 'a/../../b', '..\\..\\win']) {
        const r = await call(conn, 'add_nodes', { projectContext, nodes: [{ thought: 'x', role: 'actor' }] });
        expect(r.isError).toBeFalsy();
      }
      const files = listTree(tmp.dir).filter((f) => f.endsWith('knowledge_graph.ndjson'));
      expect(files.sort()).toEqual(['etc', 'outside', 'b', 'win'].map((p) => path.join('data', 'projects', p, 'knowledge_graph.ndjson')).sort());
      expect(listTree(outside)).toEqual(['secret.json']);
    });

    it.each([['..'], ['/'], ['../..'], ['C:\\'], ['a\0b'], ['!!!']])('refuses %j with a clear error', async (projectContext) => {
      const r = await call(conn, 'add_nodes', { projectContext, nodes: [{ thought: 'x', role: 'actor' }] });
      expectRefused(r, 'invalid_arguments', 'projectContext');
    });
  });
});

describe('security: what a validation command gets (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Conn;
  beforeAll(async () => {
    tmp = tempDir('wg-sec-env-');
    fs.mkdirSync(path.join(tmp.dir, 'root'));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', path.join(tmp.dir, 'root')], env: { WG_TEST_MARKER: 'from-client-config' } });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  it('runs in projectRoot through /bin/sh with the server environment unchanged and stdin closed', async () => {
    const root = path.join(tmp.dir, 'root');
    const command = 'pwd -P > cwd.txt; env > env.txt; cat > stdin.txt; echo "$0" > shell.txt';
    await call(conn, 'init_project_graph', { projectName: 'env', projectRoot: root, nodes: [{ id: 'e', title: 'Env', validation_command: command }] });
    await call(conn, 'start_task', { project: 'env', nodeId: 'e' });
    const r = await call(conn, 'validate_task_loop', { project: 'env', nodeId: 'e' });
    expect(r.structuredContent!.validation_passed).toBe(true);
    expect(fs.readFileSync(path.join(root, 'cwd.txt'), 'utf8').trim()).toBe(fs.realpathSync(root));
    const env = fs.readFileSync(path.join(root, 'env.txt'), 'utf8');
    expect(env).toContain('WG_TEST_MARKER=from-client-config');
    expect(env).toContain(`WORKGRAPH_DATA_DIR=${path.join(tmp.dir, 'data')}`);
    expect(env).not.toMatch(/^PROJECT_ROOT=/m);
    // The one variable added: the marker that finds the command's processes when it must be killed.
    expect(env).toMatch(/^WORKGRAPH_COMMAND_ID=[0-9a-f-]{36}$/m);
    expect(fs.readFileSync(path.join(root, 'stdin.txt'), 'utf8')).toBe('');
    expect(fs.readFileSync(path.join(root, 'shell.txt'), 'utf8').trim()).toBe('/bin/sh');
  }, 60_000);
});
