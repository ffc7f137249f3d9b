import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, CLI, tempDir } from './helpers/server-process';

const REPO_ROOT = path.resolve(__dirname, '../..');
const SUM_TO_N = path.join(REPO_ROOT, 'examples/graphs/sum_to_n.yaml');
const COUNT_FILES = path.join(REPO_ROOT, 'examples/graphs/count_files.yaml');

/** The built CLI, from the repo root unless told otherwise (the count_files example's paths are relative to it). */
function run(args: string[], cwd = REPO_ROOT) {
  assertBuilt();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd, env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The trace table's rows (header and total line left out), split into their columns. */
function traceRows(stderr: string): string[][] {
  const lines = stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^#\s+NODE\s+TYPE\s+MS\s+OUTPUT$/);
  return lines.slice(1, -1).map((l) => l.trim().split(/\s{2,}/));
}

describe('workgraph run (built CLI)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-cli-run-');
  });
  afterAll(() => tmp.cleanup());

  it('runs sum_to_n and prints the result JSON on stdout, nothing on stderr', () => {
    const r = run(['run', SUM_TO_N, 'sum_to_n', '--args', '{"n":100}']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ sum: 5050 });
  });

  it('--trace prints every node execution (index, node, type, ms, output) and a total on stderr', () => {
    const r = run(['run', SUM_TO_N, 'sum_to_n', '--args', '{"n":2}', '--trace']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ sum: 3 });
    const rows = traceRows(r.stderr);
    expect(rows.map((c) => [c[0], c[1], c[2]])).toEqual([
      ['0', 'entry_sum', 'entry'],
      ['1', 'increment_node', 'transform'],
      ['2', 'check_condition', 'switch'],
      ['3', 'increment_node', 'transform'],
      ['4', 'check_condition', 'switch'],
      ['5', 'exit_sum', 'transform'],
      ['6', 'exit_sum_final', 'exit'],
    ]);
    for (const c of rows) expect(c[3]).toMatch(/^\d+$/);
    expect(rows.map((c) => c[4])).toEqual([
      '{"n":2}',
      '{"counter":1,"sum":1,"target":2}',
      '"increment_node"',
      '{"counter":2,"sum":3,"target":2}',
      '"exit_sum"',
      '{"sum":3}',
      '{"sum":3}',
    ]);
    expect(r.stderr.trimEnd().split('\n').pop()).toMatch(/^7 node execution\(s\) in \d+ ms$/);
  });

  it('a failed run exits 1 with one line on stderr; --trace shows the failing node', () => {
    const r = run(['run', SUM_TO_N, 'sum_to_n', '--args', '{"n":"ten"}', '--trace']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.pop()).toBe("workgraph run: tool 'sum_to_n': invalid arguments: n: must be number");
    const rows = traceRows(lines.join('\n'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(0, 3)).toEqual(['0', 'entry_sum', 'entry']);
    expect(rows[0]![4]).toMatch(/^error invalid_arguments: /);
  });

  it('bad --args JSON, an unknown tool and a graph that does not load: one line on stderr, exit 1', () => {
    const badJson = run(['run', SUM_TO_N, 'sum_to_n', '--args', '{n: 1}']);
    expect(badJson.code).toBe(1);
    expect(badJson.stdout).toBe('');
    expect(badJson.stderr).toMatch(/^workgraph run: --args is not valid JSON: .+\n$/);

    const unknown = run(['run', SUM_TO_N, 'sum_to_m', '--args', '{"n":1}']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`workgraph run: tool 'sum_to_m' is not declared in ${SUM_TO_N} (tools: sum_to_n)\n`);

    const broken = path.join(tmp.dir, 'broken.yaml');
    fs.writeFileSync(broken, fs.readFileSync(SUM_TO_N, 'utf8').replace('next: "check_condition"', 'next: "check_conditon"'));
    const load = run(['run', broken, 'sum_to_n', '--args', '{"n":1}']);
    expect(load.code).toBe(1);
    expect(load.stdout).toBe('');
    expect(load.stderr.split('\n')).toHaveLength(2); // one line, then the final newline
    expect(load.stderr).toContain(broken);
    expect(load.stderr).toContain('check_conditon');

    const missing = run(['run', path.join(tmp.dir, 'missing.yaml'), 'sum_to_n']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing.yaml');
  });

  it('usage errors exit 2', () => {
    expect(run(['run', SUM_TO_N]).code).toBe(2);
    expect(run(['run']).code).toBe(2);
    expect(run(['run', SUM_TO_N, 'sum_to_n', '--frobnicate']).code).toBe(2);
  });

  it('runs the count_files example unchanged over the official filesystem server (from the repo root)', () => {
    const r = run(['run', COUNT_FILES, 'count_files', '--args', JSON.stringify({ directory: 'tests/fixtures/count-files' }), '--trace']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ count: 3 });
    const rows = traceRows(r.stderr);
    expect(rows.map((c) => [c[1], c[2]])).toEqual([
      ['entry_count_files', 'entry'],
      ['list_directory_node', 'mcp'],
      ['count_files_node', 'transform'],
      ['exit_count_files', 'exit'],
    ]);
  }, 60_000);

  it('runs count_files against a temp folder (its working directory), and reports the server refusing a path', () => {
    // The example's paths are relative to the working directory: give the temp folder the checkout's node_modules.
    const work = path.join(tmp.dir, 'work');
    fs.mkdirSync(path.join(work, 'data', 'nested'), { recursive: true });
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    for (const name of ['one.txt', 'two.txt', 'three.md', 'four.json']) fs.writeFileSync(path.join(work, 'data', name), name);
    const ok = run(['run', COUNT_FILES, 'count_files', '--args', '{"directory":"data"}'], work);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ count: 4 });

    // A folder outside the one the server may read: the server answers isError; the run fails naming node, server, tool.
    const refused = run(['run', COUNT_FILES, 'count_files', '--args', JSON.stringify({ directory: REPO_ROOT })], work);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^workgraph run: node 'list_directory_node': tool 'list_directory' on server 'filesystem' .+\n$/);
  }, 60_000);
});
