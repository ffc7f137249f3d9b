import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { validateFiles } from '../../../src/cli/validate';

describe('workgraph validate on graph files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-graph-validate-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('accepts the seed example and the format fixtures', async () => {
    const fixtures = path.join(__dirname, '../../fixtures/graphs');
    expect(
      await validateFiles([
        path.join(__dirname, '../../../examples/graphs/sum_to_n.yaml'),
        path.join(fixtures, 'older-format.yaml'),
        path.join(fixtures, 'nested-format.yaml'),
        path.join(fixtures, 'newest-format.yaml'),
        path.join(fixtures, 'nested-format.json'),
      ]),
    ).toEqual([]);
  });

  it('reports each problem of a graph file as file:line:column', async () => {
    const file = path.join(dir, 'bad.yaml');
    const text = (await fs.readFile(path.join(__dirname, '../../../examples/graphs/sum_to_n.yaml'), 'utf8')).replace(
      'target: "exit_sum"',
      'target: "exit_missing"',
    );
    await fs.writeFile(file, text);
    const line = text.split('\n').findIndex((l) => l.includes('- id: "check_condition"')) + 1;
    expect(await validateFiles([file])).toEqual([
      { file, line, column: 5, message: "tool 'sum_to_n', node 'check_condition': routes to 'exit_missing', which is not a node of this tool" },
      expect.objectContaining({ file, message: "tool 'sum_to_n', node 'exit_sum_final': exit node is not reachable from entry node 'entry_sum'" }),
    ]);
  });
});
