import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, CLI, tempDir } from './helpers/server-process';

function run(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  assertBuilt();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: opts.cwd, env: { ...env, ...opts.env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('workgraph CLI (built)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-cli-');
  });
  afterAll(() => tmp.cleanup());

  it('prints help and version with exit 0', () => {
    const help = run(['--help']);
    expect(help.code).toBe(0);
    for (const cmd of ['serve', 'validate', 'list', 'tasks']) expect(help.stdout).toContain(cmd);
    const version = run(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run(['validate', '--help']).stdout).toContain('file:line:column');
  });

  it('exits 2 on usage errors', () => {
    expect(run(['validate']).code).toBe(2);
    const unknown = run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    expect(run(['serve', '--log-level', 'loud']).code).toBe(2);
  });

  it('validate: exit 0 for good files, 1 with file:line:column: message per problem', () => {
    const good = run(['validate', path.join(__dirname, '../fixtures/workflows/code-review.json')]);
    expect(good.code).toBe(0);
    const bad = path.join(tmp.dir, 'bad.json');
    fs.writeFileSync(bad, '{\n  "id": "bad",\n  "name": "Bad",\n  "description": "d",\n  "version": "1",\n  "steps": [\n    {"id": "a", "title": "A"}\n  ]\n}\n');
    const broken = path.join(tmp.dir, 'broken.json');
    fs.writeFileSync(broken, '{\n  "id": "x",\n  "steps": [,]\n}');
    const r = run(['validate', bad, broken, path.join(tmp.dir, 'missing.json')]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:7:\\d+: .*prompt`)),
        expect.stringMatching(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:\\d+: `)),
        expect.stringMatching(/missing\.json:1:1: .*not found/),
      ]),
    );
    for (const l of lines) expect(l).toMatch(/^.+:\d+:\d+: .+$/);
  });

  it('validate: a graph file with no tools yet (only its server block) passes with a warning, as mcpgraph 0.1.27+ accepts it', () => {
    const bare = path.join(tmp.dir, 'no-tools.yaml');
    fs.writeFileSync(bare, 'version: "1.0"\nserver:\n  name: empty\n  version: 1.0.0\n');
    const emptyList = path.join(tmp.dir, 'empty-tools.yaml');
    fs.writeFileSync(emptyList, 'version: "1.0"\nserver:\n  name: empty\n  version: 1.0.0\ntools: []\n');
    const r = run(['validate', bare, emptyList]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual([
      `${bare}:1:1: warning: the file declares no tools: it loads, but serves nothing`,
      `${emptyList}:1:1: warning: the file declares no tools: it loads, but serves nothing`,
      '2 file(s) OK (2 warning(s))',
    ]);
    // A file that is neither is still refused.
    const other = path.join(tmp.dir, 'other.yaml');
    fs.writeFileSync(other, 'hello: world\n');
    expect(run(['validate', other]).code).toBe(1);
  });

  it('list: the bundled workflows and invalid files in a --workflows folder', () => {
    const wf = path.join(tmp.dir, 'wf');
    fs.mkdirSync(wf, { recursive: true });
    fs.writeFileSync(path.join(wf, 'oops.json'), 'not json');
    const r = run(['list', '--workflows', wf, '--data-dir', path.join(tmp.dir, 'data')], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('review-change');
    expect(r.stdout).toContain('oops.json');
    const json = JSON.parse(run(['list', '--json', '--workflows', wf], { cwd: tmp.dir }).stdout);
    expect(json.workflows.length).toBeGreaterThanOrEqual(3);
    expect(json.invalid).toEqual([expect.objectContaining({ file: expect.stringContaining('oops.json') })]);
  });

  it('tasks: exit 1 with a message for an unknown project', () => {
    const r = run(['tasks', 'nope', '--data-dir', path.join(tmp.dir, 'data')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nope');
  });
});
