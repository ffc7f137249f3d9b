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
      { file: folder, line: 1, column: 1, message: 'the folder holds no .json, .yaml or .yml file to check' },
      { file: other, line: 1, column: 1, message: expect.stringMatching(/neither a workflow.*nor a graph/) },
      { file: yamlWorkflow, line: 1, column: 1, message: expect.stringMatching(/workflow files are JSON/) },
    ]);
    expect(problems.filter((p) => p.file === bad).map((p) => p.message)).toEqual(
      expect.arrayContaining(['/id: is required', '/steps: must NOT have fewer than 1 items']),
    );
  });

  it('says a file is not JSON at its line:column, and an empty one is empty (both said "neither a workflow nor a graph")', async () => {
    const notJson = await write('notes.json', 'this is not json\n');
    const plain = await write('notes.txt', 'this is not json\n');
    const empty = await write('empty.json', '');
    const unclosed = await write('open.json', '{\n  "steps": [\n');
    const problems = await validateFiles([notJson, plain, empty, unclosed]);
    expect(problems.filter((p) => p.file !== unclosed)).toEqual([
      { file: notJson, line: 1, column: 1, message: expect.stringMatching(/^not JSON: invalid character/) },
      { file: plain, line: 1, column: 1, message: expect.stringMatching(/^not JSON \(invalid character.*\), and as YAML it is a string, not a mapping/) },
      { file: empty, line: 1, column: 1, message: expect.stringMatching(/^the file is empty/) },
    ]);
    // Unclosed brackets are noticed at the end of the text: after its last character (2:13), not on a line 3.
    const atEnd = problems.filter((p) => p.file === unclosed);
    expect(atEnd.length).toBeGreaterThan(0);
    for (const p of atEnd) expect(p).toEqual({ file: unclosed, line: 2, column: 13, message: expect.stringMatching(/^not JSON: expected '[\]}]' to close the (array|object) \(at the end of the file\)$/) });
  });

  it('places a YAML error the parser meets at the end of the file on the last line, not past it', async () => {
    const nine = ['a: 1', 'b: 2', 'c: 3', 'd: 4', 'e: 5', 'f: 6', 'g: 7', 'h: 8', 'i: "abc'].join('\n') + '\n';
    const file = await write('nine.yaml', nine);
    expect(await validateFiles([file])).toEqual([{ file, line: 9, column: 8, message: 'YAML: Missing closing "quote (at the end of the file)' }]);
  });

  it("points a bad JSONata expression's problem at its character in the file and says what is wrong", async () => {
    const file = await write(
      'g.yaml',
      [
        'version: "1.0"',
        'server: { name: "b", version: "1.0.0" }',
        'tools:',
        '  - name: "t"',
        '    description: "d"',
        '    inputSchema: { type: "object" }',
        '    outputSchema: { type: "object" }',
        'nodes:',
        '  - { id: "entry", type: "entry", tool: "t", next: "tr" }',
        '  - id: "tr"',
        '    type: "transform"',
        '    transform:',
        '      expr: |',
        '        {',
        '          "a": $.x 2',
        '        }',
        '    next: "exit"',
        '  - { id: "exit", type: "exit", tool: "t" }',
      ].join('\n'),
    );
    expect(await validateFiles([file])).toEqual([
      { file, line: 15, column: 20, message: expect.stringMatching(/node 'tr': JSONata syntax error at character \d+: Expected "}", got 2 \(near ".*\$\.x 2 }"\)$/) },
    ]);
    // jsonata's own words for two values in a row are "Syntax error: 2".
    const oneLine = await write('one-line.yaml', (await fs.readFile(file, 'utf8')).replace(/expr: \|\n {8}\{\n {10}"a": \$\.x 2\n {8}\}/, 'expr: "$.x 2"'));
    expect(await validateFiles([oneLine])).toEqual([
      { file: oneLine, line: 13, column: 18, message: expect.stringMatching(/node 'tr': JSONata syntax error at character 5: unexpected "2": two values in a row \(a missing operator, comma or bracket before it\?\) \(near "\$\.x 2"\)$/) },
    ]);
  });

  it('validates the files of a folder given, and sorts each file\'s problems by line', async () => {
    const sub = path.join(dir, 'set');
    await fs.mkdir(path.join(sub, 'nested'), { recursive: true });
    await fs.mkdir(path.join(sub, 'node_modules'));
    await fs.writeFile(path.join(sub, 'node_modules', 'skip.json'), 'nope');
    await fs.writeFile(path.join(sub, 'readme.md'), '# not checked');
    await fs.copyFile(path.join(__dirname, '../../fixtures/workflows/code-review.json'), path.join(sub, 'good.json'));
    const bad = path.join(sub, 'nested', 'bad.json');
    await fs.writeFile(bad, ['{', '  "id": "Bad Id",', '  "name": "N",', '  "description": "D",', '  "version": "1.0.0",', '  "steps": [', '    {"id": "s", "title": "T"},', '    {"id": "Bad Step", "title": "T", "prompt": "p"}', '  ]', '}'].join('\n'));
    const checked: string[] = [];
    const problems = (await validateFiles([sub], { onChecked: (f) => checked.push(f) })).filter((p) => p.severity !== 'warning');
    expect(checked).toEqual([path.join(sub, 'good.json'), bad]);
    expect(problems.length).toBeGreaterThanOrEqual(3);
    expect(problems.every((p) => p.file === bad)).toBe(true);
    const lines = problems.map((p) => p.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });
});
