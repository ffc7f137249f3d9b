import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { InvalidGraphError } from '../../src/kernel/errors';
import { loadGraph } from '../../src/modules/graph/infrastructure';
import { CLI, RawServer, tempDir } from './helpers/server-process';

/**
 * Issue 6, `--graphs` paths. Graph files are trusted configuration (DESIGN.md §2): the user names them, so a symlink
 * in a graph folder is followed like any file the user installed. What must hold is that every bad path gives a clear
 * one-line message naming it — a missing path, a dangling symlink, a folder where a file is expected, a broken file,
 * a NUL byte — while the server keeps serving everything else, never crashes and exits 0 when the client leaves.
 */

const run = promisify(execFile);
const examples = path.resolve(__dirname, '../../examples/graphs');
const fixtures = path.resolve(__dirname, '../fixtures/graphs');

describe('--graphs paths (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphs: string;
  let outside: string;

  beforeAll(() => {
    tmp = tempDir('wg-e2e-graph-paths-');
    graphs = path.join(tmp.dir, 'graphs');
    outside = path.join(tmp.dir, 'outside');
    fs.mkdirSync(graphs);
    fs.mkdirSync(outside);
    fs.copyFileSync(path.join(examples, 'sum_to_n.yaml'), path.join(outside, 'sum_to_n.yaml'));
    fs.copyFileSync(path.join(fixtures, 'nested-format.json'), path.join(outside, 'double.json'));
    // A graph file symlinked from outside the folder: trusted configuration, served.
    fs.symlinkSync(path.join(outside, 'sum_to_n.yaml'), path.join(graphs, 'linked.yaml'));
    // A symlink to a folder outside: folders are not searched recursively, so its graphs are not served.
    fs.symlinkSync(outside, path.join(graphs, 'elsewhere'));
    // Entries named like graph files that are not readable files.
    fs.symlinkSync(path.join(tmp.dir, 'gone.yaml'), path.join(graphs, 'dangling.yaml'));
    fs.mkdirSync(path.join(graphs, 'folder.yaml'));
    fs.writeFileSync(path.join(graphs, 'broken.yaml'), 'nodes: [\n');
  });
  afterAll(() => tmp.cleanup());

  it('serves the good graphs, names every bad path on stderr once, and exits 0 when the client leaves', async () => {
    const missing = path.join(tmp.dir, 'missing');
    const server = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs, '--graphs', missing] });
    try {
      await server.initialize();
      server.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
      const tools = ((await server.response('list')).result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      expect(tools).toContain('sum_to_n');
      expect(tools).toContain('workflow_list');
      expect(tools).not.toContain('json_double'); // only in the folder the symlink `elsewhere` points at

      server.send({ jsonrpc: '2.0', id: 'sum', method: 'tools/call', params: { name: 'sum_to_n', arguments: { n: 4 } } });
      expect(((await server.response('sum')).result as { structuredContent: unknown }).structuredContent).toEqual({ sum: 10 });

      server.child.stdin.end();
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      server.kill();
    }

    const messages = server.stderr
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => (JSON.parse(l) as { msg: string }).msg); // every stderr line is one pino JSON line
    const about = (file: string) => messages.filter((m) => m.includes(file));
    expect(about(missing)).toEqual([`graph path skipped: ${missing}: graph path cannot be read (ENOENT)`]);
    expect(about(path.join(graphs, 'dangling.yaml'))).toEqual([`graph file skipped: ${path.join(graphs, 'dangling.yaml')} cannot be read (ENOENT)`]);
    expect(about(path.join(graphs, 'folder.yaml'))).toEqual([`graph file skipped: ${path.join(graphs, 'folder.yaml')} is a folder, not a file`]);
    expect(about(path.join(graphs, 'broken.yaml'))).toEqual([expect.stringMatching(/^graph file not loaded: .*broken\.yaml:1:9: YAML: .*\(at the end of the file\)$/)]); // a 1-line file: on line 1, not 2
    expect(about(path.join(graphs, 'linked.yaml'))).toEqual([]); // loaded: logged at info, below the test's warn level
    expect(server.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 30_000);

  it('workgraph run and validate name a missing path, a dangling symlink and a folder, with exit 1', async () => {
    const missing = path.join(tmp.dir, 'missing.yaml');
    const runMissing = await run(process.execPath, [CLI, 'run', missing, 'sum_to_n', '--args', '{"n":3}']).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(runMissing).toMatchObject({ code: 1, stdout: '' });
    expect((runMissing as { stderr: string }).stderr).toBe(`workgraph run: ${missing}: graph path cannot be read (ENOENT)\n`);

    const dangling = path.join(graphs, 'dangling.yaml');
    const folder = path.join(graphs, 'folder.yaml');
    const validate = await run(process.execPath, [CLI, 'validate', dangling, folder, path.join(graphs, 'linked.yaml')]).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(validate).toMatchObject({ code: 1 });
    const out = `${(validate as { stdout: string }).stdout}${(validate as { stderr: string }).stderr}`;
    expect(out).toContain(`${dangling}:1:1: file not found`);
    expect(out).toContain(`${folder}:1:1: the folder holds no .json, .yaml or .yml file to check`); // a folder given: its files are checked
    expect(out).not.toContain('linked.yaml:'); // the symlinked good graph has no problem
  }, 30_000);

  it('a NUL byte in a graph path is refused with a clear error (library), and cannot even reach the CLI', async () => {
    const err = await loadGraph(path.join(graphs, 'a\0b.yaml')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGraphError);
    expect((err as InvalidGraphError).message).toBe(`${JSON.stringify(path.join(graphs, 'a\0b.yaml'))}: graph path contains a NUL byte`);
    expect((err as InvalidGraphError).message).not.toContain('\0');
    // argv and environment strings are C strings: Node refuses to start a process with a NUL in either.
    expect(() => spawn(process.execPath, [CLI, 'serve', '--graphs', 'a\0b'])).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }));
    expect(() => spawn(process.execPath, [CLI, 'serve'], { env: { WORKGRAPH_GRAPHS_PATH: 'a\0b' } })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_VALUE' }),
    );
  });
});
