import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { registerGraphValidator, validateFiles } from '../../../src/cli/validate';
import { registeredGraphValidator, type GraphValidator } from '../../../src/cli/validate/graph-validators';

describe('validateFiles (workgraph validate)', () => {
  let dir: string;
  let previousGraphValidator: GraphValidator | undefined;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-validate-'));
    previousGraphValidator = registeredGraphValidator();
  });
  afterEach(async () => {
    registerGraphValidator(previousGraphValidator);
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function write(name: string, text: string): Promise<string> {
    const file = path.join(dir, name);
    await fs.writeFile(file, text);
    return file;
  }

  it('a valid workflow has no problems', async () => {
    const file = path.join(dir, 'code-review.json');
    await fs.copyFile(path.join(__dirname, '../../fixtures/workflows/code-review.json'), file);
    // a classic file's format-dependent conditions are warnings, not problems
    expect((await validateFiles([file])).filter((p) => p.severity !== 'warning')).toEqual([]);
  });

  it('reports each workflow problem with file, line, column and the JSON pointer', async () => {
    const file = await write(
      'wf.json',
      ['{', '  "id": "Bad Id",', '  "name": "N",', '  "description": "D",', '  "version": "1.0.0",', '  "steps": [', '    {"id": "s", "title": "T"}', '  ]', '}'].join('\n'),
    );
    expect(await validateFiles([file])).toEqual([
      { file, line: 2, column: 9, message: expect.stringMatching(/^\/id: must match the pattern/) },
      { file, line: 7, column: 5, message: '/steps/0/prompt: is required' },
    ]);
  });

  it('reports JSON syntax errors with their position', async () => {
    const file = await write('wf.json', '{\n  "steps": [1,],\n}');
    const problems = await validateFiles([file]);
    expect(problems[0]).toEqual({ file, line: 2, column: 15, message: expect.stringMatching(/trailing commas/) });
  });

  it('reports YAML syntax errors with their position', async () => {
    const file = await write('graph.yaml', 'tools:\n  - name: x\n   bad: [\n');
    const problems = await validateFiles([file]);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ file, message: expect.stringMatching(/^YAML: /) });
    expect(problems[0].line).toBeGreaterThanOrEqual(2);
  });

  it('tells graphs from workflows by content and hands graphs to the registered graph validator', async () => {
    const yamlGraph = await write('g.yaml', 'version: "1.0"\ntools:\n  - name: t\n    nodes: []\n');
    const jsonGraph = await write('g.json', '{"nodes": []}');
    const calls: string[] = [];
    registerGraphValidator((file, text) => {
      calls.push(file);
      return text.includes('tools') ? [{ line: 3, column: 5, message: 'tool t has no entry node' }] : [];
    });
    expect(await validateFiles([yamlGraph, jsonGraph])).toEqual([{ file: yamlGraph, line: 3, column: 5, message: 'tool t has no entry node' }]);
    expect(calls).toEqual([yamlGraph, jsonGraph]);
  });

  it('says honestly when graph validation is not available', async () => {
    registerGraphValidator(undefined);
    const file = await write('g.yaml', 'nodes:\n  - id: entry\n    type: entry\n');
    expect(await validateFiles([file])).toEqual([
      { file, line: 1, column: 1, message: expect.stringMatching(/graph validation is not available.*not checked/) },
    ]);
  });

  it('one problem per missing, unreadable or unrecognised file; the other files are still checked', async () => {
    const missing = path.join(dir, 'missing.json');
    const folder = path.join(dir, 'folder.json');
    await fs.mkdir(folder);
    const other = await write('other.yaml', 'hello: world\n');
    const yamlWorkflow = await write('wf.yaml', 'id: x\nsteps: []\n');
    const good = path.join(dir, 'good.json');
    await fs.copyFile(path.join(__dirname, '../../fixtures/workflows/code-review.json'), good);
    const bad = await write('bad.json', '{"steps": []}');
    const problems = (await validateFiles([missing, folder, other, yamlWorkflow, good, bad])).filter((p) => p.severity !== 'warning');
    expect(problems.filter((p) => p.file !== bad)).toEqual([
      { file: missing, line: 1, column: 1, message: 'file not found' },
      { file: folder, line: 1, column: 1, message: 'is a folder, not a file' },
      { file: other, line: 1, column: 1, message: expect.stringMatching(/neither a workflow.*nor a graph/) },
      { file: yamlWorkflow, line: 1, column: 1, message: expect.stringMatching(/workflow files are JSON/) },
    ]);
    expect(problems.filter((p) => p.file === bad).map((p) => p.message)).toEqual(
      expect.arrayContaining(['/id: is required', '/steps: must NOT have fewer than 1 items']),
    );
  });
});
