import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Two rules of docs/architecture.md that the compiler cannot see, checked over the source text:
 * - a tool's use case takes its input and output types from the tool's declaration (`ToolInput` / `ToolOutput` of
 *   its `<m>.tool-schemas.ts`), so no hand-written `…Input` / `…Output` interface sits beside a declaration;
 * - the prose an agent reads lives in one place per module (tasks: task-messages.ts, knowledge:
 *   knowledge-messages.ts, workflow: domain/guidance.ts and domain/verification-guidance.ts), not in the use cases.
 */
const root = path.join(__dirname, '..', '..', '..');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

const useCases = ['workflow', 'graph', 'tasks', 'knowledge'].flatMap((m) => filesUnder(`src/modules/${m}/application/use-cases`));
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** Hand-written interfaces named like a use case's input or output. */
function handWrittenIO(source: string): string[] {
  return [...source.matchAll(/^export interface (\w+(?:Input|Output))\b/gm)].map((m) => m[1]);
}

/** Answer prose written in place: a `message`/`note` property or a pushed warning given literal text, a markdown heading. */
function strayProse(source: string): string[] {
  const found = [...source.matchAll(/\b\w*(?:[mM]essage|[nN]ote):\s*[`'"][^`'"]/g), ...source.matchAll(/\bwarnings\.push\(\s*[`'"]/g), ...source.matchAll(/[`'"]#{2} /g)];
  return found.map((m) => m[0]);
}

describe('declared once', () => {
  it('finds the use cases', () => {
    expect(useCases.length).toBeGreaterThan(30);
  });

  it("a tool's use case has no hand-written input or output interface beside its declaration", () => {
    const tools = useCases.filter((f) => /from '[./]+[\w-]+\.tool-schemas'/.test(read(f)));
    expect(tools.length).toBeGreaterThanOrEqual(25);
    const offenders = tools.flatMap((f) => handWrittenIO(read(f)).map((name) => `${f}: ${name}`));
    expect(offenders).toEqual([]);
  });

  it('the use cases and services of the modules that answer with prose take it from their messages place', () => {
    // Diagnostics about a checked document (a workflow file's invalid regex) stay beside the check that finds them,
    // as the graph module's checks do; they describe the file, not what the agent should do next.
    const diagnostics = ['src/modules/workflow/application/services/workflow-document-checker.ts'];
    const files = [
      ...useCases.filter((f) => !f.includes('/graph/')),
      ...['workflow', 'tasks', 'knowledge'].flatMap((m) => filesUnder(`src/modules/${m}/application/services`)),
    ].filter((f) => !/-messages\.ts$/.test(f) && !diagnostics.includes(f));
    expect(files.length).toBeGreaterThan(40);
    const offenders = files.flatMap((f) => strayProse(read(f)).map((hit) => `${f}: ${hit}`));
    expect(offenders).toEqual([]);
  });

  it('notices what it looks for', () => {
    expect(handWrittenIO('export interface AddNodesInput {\n  a: string;\n}\nexport interface Other {}')).toEqual(['AddNodesInput']);
    expect(strayProse("return { message: `Deleted ${n} node(s)` };")).toHaveLength(1);
    expect(strayProse("warnings.push('Node has dependents');")).toHaveLength(1);
    expect(strayProse('const s = `## Blocked\\n...`;')).toHaveLength(1);
    expect(strayProse('return { firstStepNote: `the first step depends on ${x}` };')).toHaveLength(1);
    expect(strayProse('return { message: KnowledgeMessages.deleted(n) };')).toEqual([]);
  });
});
