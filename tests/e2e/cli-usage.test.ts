import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, CLI, connectClient, tempDir } from './helpers/server-process';
import { call } from './helpers/dashboard-seed';

function run(args: string[], opts: { input?: string } = {}) {
  assertBuilt();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...env, WORKGRAPH_LOG_LEVEL: 'warn' }, input: opts.input ?? '', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

/** Usage errors, warnings and the smaller options of the CLI (built). */
describe('CLI usage (built)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => (tmp = tempDir('wg-cli-usage-')));
  afterAll(() => tmp.cleanup());

  it('every usage error exits 2 with one line `workgraph COMMAND: …` (--http notaport and --shutdown-grace -1 exited 1)', () => {
    const data = ['--data-dir', path.join(tmp.dir, 'data')];
    const cases: Array<[string[], RegExp]> = [
      [['serve', '--http', 'notaport', ...data], /^workgraph serve: --http: expected \[HOST:\]PORT/],
      [['--shutdown-grace', '-1', ...data], /^workgraph serve: --shutdown-grace: expected a number of seconds/],
      [['serve', '--shutdown-grace', 'soon', ...data], /^workgraph serve: --shutdown-grace: expected a number of seconds/],
      [['serve', '--http', '0.0.0.0:0', ...data], /^workgraph serve: --http: binding 0\.0\.0\.0 \(not a loopback address\) requires authentication/],
      [['serve', '--log-level', 'loud'], /^workgraph serve: option '--log-level <level>' argument 'loud' is invalid/],
      [['serve', '--modules', 'nope', ...data], /^workgraph serve: --modules: unknown module 'nope'/],
      [['sessions', 'prune', '--older-than', 'x', ...data], /^workgraph sessions prune: --older-than: expected a number of days/],
      [['sessions', '--json', 'prune', ...data], /^workgraph sessions prune: --json given before `prune` is not an option of `sessions prune`/],
      [['sessions', 'prune', '--bogus'], /^workgraph sessions prune: unknown option '--bogus'/],
      [['tasks'], /^workgraph tasks: missing required argument 'project'/],
      [['tasks', 'x', '--mermaid', '--json', ...data], /^workgraph tasks: --mermaid and --json: give one of them/],
      [['db', 'status', '--database-url', 'mysql://x'], /^workgraph db status: --database-url: expected a postgres:\/\/ or postgresql:\/\/ URL/],
      [['frobnicate'], /^workgraph: unknown command 'frobnicate'/],
    ];
    for (const [args, message] of cases) {
      const r = run(args);
      expect({ args: args.join(' '), code: r.code, stderr: r.stderr.split('\n')[0] }).toEqual({ args: args.join(' '), code: 2, stderr: expect.stringMatching(message) });
    }
  });

  it('serve warns about a --workflows folder that does not exist, as list does', () => {
    const missing = path.join(tmp.dir, 'no-such-workflows');
    const r = run(['serve', '--workflows', missing, '--data-dir', path.join(tmp.dir, 'data')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`workflow folder ${missing} (flag) does not exist or is not a folder; it is ignored`);
    expect(run(['list', '--workflows', missing]).stderr).toContain(`workgraph list: workflow folder ${missing} (flag) does not exist or is not a folder; it is ignored`);
  });

  it('list --graphs of a file that does not exist names the path once', () => {
    const missing = path.join(tmp.dir, 'nonexistent.yaml');
    const r = run(['list', '--graphs', missing, '--data-dir', path.join(tmp.dir, 'data')]);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes(missing))!;
    expect(line.split(missing).length - 1).toBe(1);
    expect(line).toMatch(/cannot be read \(ENOENT\)/);
  });

  it('tasks --json prints the graph; session takes a unique id prefix and lists the candidates of an ambiguous one', async () => {
    const data = path.join(tmp.dir, 'sessions-data');
    const root = path.join(tmp.dir, 'app');
    fs.mkdirSync(root);
    const conn = await connectClient({ dataDir: data, args: ['--workflows', WORKFLOWS, '--allow-root', tmp.dir] });
    const ids: string[] = [];
    try {
      await call(conn.client, 'init_project_graph', { projectName: 'Json App', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }, { id: 'b', title: 'B', depends_on: ['a'] }] });
      // Session ids are random: start sessions until two share their first character (17 at most, by pigeonhole).
      while (!ids.some((a, i) => ids.some((b, j) => i !== j && a[0] === b[0]))) {
        ids.push((await call(conn.client, 'workflow_start', { workflowId: 'session-demo', goal: `run ${ids.length}`, context: { files: [] } })).sessionId as string);
      }
    } finally {
      await conn.close();
    }
    const graph = run(['tasks', 'Json App', '--json', '--data-dir', data]);
    expect(graph.code).toBe(0);
    const view = JSON.parse(graph.stdout);
    expect(view).toMatchObject({ project_id: 'json-app', project_name: 'Json App' });
    expect(view.nodes.map((n: { id: string }) => n.id)).toEqual(['a', 'b']);

    const target = ids[0]!;
    const unique = target.slice(0, ids.filter((x) => x !== target).reduce((n, other) => Math.max(n, commonPrefix(target, other) + 1), 1));
    const shown = run(['session', unique, '--data-dir', data]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Session ${target} — active`);

    const letter = ids.find((a) => ids.filter((b) => b[0] === a[0]).length > 1)![0]!;
    const candidates = ids.filter((x) => x.startsWith(letter)).sort();
    const ambiguous = run(['session', letter, '--data-dir', data]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(`workgraph session: session id prefix '${letter}' is ambiguous: ${candidates.length} sessions start with it (${candidates.join(', ')})`);
    expect(run(['session', 'zz', '--data-dir', data]).stderr).toContain("session 'zz' not found");
  }, 120_000);
});

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}
