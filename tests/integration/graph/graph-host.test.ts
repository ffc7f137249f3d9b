import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidGraphError } from '../../../src/kernel/errors';
import { GraphHost, loadGraph } from '../../../src/modules/graph/infrastructure';
import { FakeMcpClientPool } from '../../unit/application/graph/graph-test-kit';

const examples = path.join(__dirname, '../../../examples/graphs');
const fixtures = path.join(__dirname, '../../fixtures/graphs');
const sumToNFile = path.join(examples, 'sum_to_n.yaml');

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-graph-host-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('loadGraph / GraphHost', () => {
  it.each([1, 10, 1000, 10_000])('runs the seed sum_to_n unchanged: n=%i gives n(n+1)/2', async (n) => {
    const host = await loadGraph(sumToNFile);
    const { result, history } = await host.executeTool('sum_to_n', { n }).promise;
    expect(result).toEqual({ sum: (n * (n + 1)) / 2 });
    expect(history.length).toBe(2 * n + 3);
  }, 120_000);

  it('lists tools with their schemas and files, and runs the older format through the pool', async () => {
    const pool = new FakeMcpClientPool(() => ({ content: [{ type: 'text', text: '{"entries": ["a", "b", "c"]}' }] }));
    const host = await loadGraph([path.join(fixtures, 'older-format.yaml'), path.join(fixtures, 'nested-format.json')], { mcpClientPool: pool });
    expect(host.listTools().map((t) => [t.name, t.file])).toEqual([
      ['older_list', path.join(fixtures, 'older-format.yaml')],
      ['json_double', path.join(fixtures, 'nested-format.json')],
    ]);
    const { result } = await host.executeTool('older_list', { dir: '/tmp' }).promise;
    expect(result).toEqual({ count: 3 });
    expect(pool.calls[0]).toEqual({
      server: { name: 'files', config: { command: 'node', args: ['fake-server.js'] } },
      tool: 'list_directory',
      args: { path: '/tmp', label: 'plain text' },
    });
    await host.close();
    expect(pool.closed).toBe(1);
  });

  it('loads every graph file of a folder', async () => {
    await fs.copyFile(sumToNFile, path.join(dir, 'a.yaml'));
    await fs.copyFile(path.join(fixtures, 'nested-format.json'), path.join(dir, 'b.json'));
    await fs.writeFile(path.join(dir, 'notes.txt'), 'not a graph');
    const host = await loadGraph(dir);
    expect(host.listTools().map((t) => t.name).sort()).toEqual(['json_double', 'sum_to_n']);
  });

  it('refuses a tool name used by two files, naming both', async () => {
    const copy = path.join(dir, 'copy.yaml');
    await fs.copyFile(sumToNFile, copy);
    const err = await loadGraph([sumToNFile, copy]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGraphError);
    expect((err as Error).message).toBe(`${copy}: tool 'sum_to_n' is also declared in ${sumToNFile}`);
  });

  it('refuses a tool named like a built-in tool', async () => {
    await expect(loadGraph(sumToNFile, { reservedToolNames: ['workflow_list', 'sum_to_n'] })).rejects.toThrow(
      `${sumToNFile}: tool 'sum_to_n' clashes with workgraph's built-in tool 'sum_to_n'`,
    );
  });

  it('reloadFiles keeps the last good graph when an edit breaks it', async () => {
    const file = path.join(dir, 'g.yaml');
    await fs.copyFile(sumToNFile, file);
    const host = new GraphHost();
    await host.load(file);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('next: "check_condition"', 'next: "gone"'));
    const { loaded, failed } = await host.reloadFiles([file]);
    expect(loaded).toEqual([]);
    expect(failed[0]!.error.message).toMatch(/node 'increment_node': routes to 'gone'/);
    expect((await host.executeTool('sum_to_n', { n: 4 }).promise).result).toEqual({ sum: 10 });

    await fs.writeFile(file, (await fs.readFile(sumToNFile, 'utf8')).replace('"sum_to_n"', '"sum_to_n2"').replace('tool: "sum_to_n"', 'tool: "sum_to_n2"').replace('tool: "sum_to_n"', 'tool: "sum_to_n2"'));
    expect((await host.reloadFiles([file])).loaded).toEqual([file]);
    expect(host.listTools().map((t) => t.name)).toEqual(['sum_to_n2']);
    expect(host.unloadFile(file)).toBe(true);
    expect(host.listTools()).toEqual([]);
  });

  it('reloadChanged reloads only the loaded files whose text on disk is no longer the one loaded', async () => {
    const file = path.join(dir, 'g.yaml');
    const other = path.join(dir, 'other.yaml');
    await fs.copyFile(sumToNFile, file);
    await fs.writeFile(other, (await fs.readFile(sumToNFile, 'utf8')).replace(/sum_to_n/g, 'other_sum'));
    const host = new GraphHost();
    await host.load([file, other]);
    const before = host.graphs().map((g) => g.config.revision);
    expect(await host.reloadChanged()).toEqual({ loaded: [], failed: [] });

    // Rewritten by someone else (the same length: only the text tells).
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('"sum_to_n"', '"sum_to_m"').replace(/tool: "sum_to_n"/g, 'tool: "sum_to_m"'));
    expect(await host.reloadChanged()).toEqual({ loaded: [file], failed: [] });
    expect(host.listTools().map((t) => t.name).sort()).toEqual(['other_sum', 'sum_to_m']);
    const after = host.graphs().map((g) => g.config.revision);
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).toBe(before[1]);
  });

  it('keeps finished runs inspectable by executionId', async () => {
    const host = await loadGraph(sumToNFile);
    const { executionId, promise } = host.executeTool('sum_to_n', { n: 3 });
    await promise;
    expect(host.getExecutionState(executionId).status).toBe('finished');
    expect(host.getExecutionByIndex(executionId, 0).output).toEqual({ n: 3 });
    expect(host.getContextForExecution(executionId, 2)).toEqual({ entry_sum: { n: 3 }, increment_node: { counter: 1, sum: 1, target: 3 } });
    expect(host.listExecutions().map((e) => e.executionId)).toEqual([executionId]);
  });
});

describe('mcpgraph drop-in details of the loader', () => {
  it('keeps a $-string that is not JSONata ("$5.00") as a literal with a load warning, in the older argument rule', async () => {
    const text = (await fs.readFile(path.join(fixtures, 'older-format.yaml'), 'utf8')).replace('label: "plain text"', 'label: "$5.00"');
    const file = path.join(dir, 'price.yaml');
    await fs.writeFile(file, text);
    const pool = new FakeMcpClientPool(() => ({ content: [{ type: 'text', text: '{"entries": ["a"]}' }] }));
    const host = await loadGraph(file, { mcpClientPool: pool });
    const warnings = host.graphs()[0]!.warnings.map((w) => w.message);
    expect(warnings).toEqual([expect.stringContaining('argument "$5.00" starts with \'$\' but is not valid JSONata')]);
    await host.executeTool('older_list', { dir: '/x' }).promise;
    expect(pool.calls[0]!.args).toEqual({ path: '/x', label: '$5.00' });
  });

  it('a file without tools loads with a warning and serves nothing', async () => {
    const file = path.join(dir, 'empty.yaml');
    await fs.writeFile(file, 'server: { name: "empty", version: "1" }\n');
    const host = await loadGraph(file);
    expect(host.listTools()).toEqual([]);
    expect(host.graphs()[0]!.warnings.map((w) => w.message)).toEqual(['the file declares no tools: it loads, but serves nothing']);
  });

  it('merges mcpServers given by the host options (--mcp-config) under the file\'s own', async () => {
    const text = (await fs.readFile(path.join(fixtures, 'older-format.yaml'), 'utf8')).replace(/servers:\n  files:\n    command: "node"\n    args: \["fake-server.js"\]\n/, '');
    const file = path.join(dir, 'no-servers.yaml');
    await fs.writeFile(file, text);
    await expect(loadGraph(file)).rejects.toThrow(/files/);
    const host = await loadGraph(file, { mcpServers: { files: { command: 'from-config' } } });
    expect(host.graphs()[0]!.config.mcpServers.files).toEqual({ command: 'from-config' });
    const own = await loadGraph(path.join(fixtures, 'older-format.yaml'), { mcpServers: { files: { command: 'from-config' } } });
    expect(own.graphs()[0]!.config.mcpServers.files).toEqual({ command: 'node', args: ['fake-server.js'] });
  });

  it('reports every problem of a file in one pass: a missing outputSchema does not hide a JSONata error', async () => {
    const file = path.join(dir, 'two-problems.json');
    await fs.writeFile(
      file,
      JSON.stringify({
        server: { name: 's', version: '1' },
        tools: [
          {
            name: 't',
            description: 'd',
            inputSchema: { type: 'object' },
            nodes: [
              { id: 'entry', type: 'entry', next: 'bad' },
              { id: 'bad', type: 'transform', transform: { expr: '$.a +' }, next: 'exit' },
              { id: 'exit', type: 'exit' },
            ],
          },
        ],
      }),
    );
    const { GraphFileLoader } = await import('../../../src/modules/graph/infrastructure/graph-file-loader');
    const problems = (await new GraphFileLoader().check(file)).map((p) => p.message);
    expect(problems).toEqual([expect.stringContaining("missing required property 'outputSchema'"), expect.stringMatching(/bad.*JSONata|JSONata.*bad/)]);
  });
});
