import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * What tools/list costs an agent (issue 11: "the tool list cannot be trimmed; descriptions stay short and precise").
 * Budgets, not exact sizes: a new tool or field may grow the list a little, a wordy description or prose in an output
 * schema fails here. docs/configuration.md lists the measured sizes.
 */
describe('tools/list size', () => {
  // Issue 22 added seven task tools (a living plan): each answers with the one task node declaration.
  const ALL_BUDGET = 94_000;
  // Issue 24 added workflow_next's workspacePath, verification outcome and sentBack (about 1.4 KB), then
  // workflow_continue's waitSeconds and its `running` status (about 150 bytes).
  const WORKFLOW_TASKS_BUDGET = 77_200;
  const TOP_DESCRIPTION_MAX = 400;
  const FIELD_DESCRIPTION_MAX = 200;

  function descriptions(schema: unknown, out: string[] = []): string[] {
    if (Array.isArray(schema)) schema.forEach((s) => descriptions(s, out));
    else if (schema && typeof schema === 'object') {
      for (const [k, v] of Object.entries(schema)) {
        if (k === 'description' && typeof v === 'string') out.push(v);
        else descriptions(v, out);
      }
    }
    return out;
  }

  it('all modules, and --modules workflow,tasks, stay within budget with short descriptions and no output-schema prose', async () => {
    const tmp = tempDir();
    const all = await connectClient({ dataDir: tmp.dir, args: ['--graphs', path.join(__dirname, '../../examples/graphs/sum_to_n.yaml')] });
    const some = await connectClient({ dataDir: tmp.dir, args: ['--modules', 'workflow,tasks'] });
    try {
      const { tools } = await all.client.listTools();
      const builtIn = tools.filter((t) => t.name !== 'sum_to_n');
      expect(JSON.stringify({ tools: builtIn }).length).toBeLessThanOrEqual(ALL_BUDGET);
      for (const t of builtIn) {
        expect({ tool: t.name, long: t.description!.length > TOP_DESCRIPTION_MAX }).toEqual({ tool: t.name, long: false });
        const long = descriptions(t.inputSchema).filter((d) => d.length > FIELD_DESCRIPTION_MAX);
        expect({ tool: t.name, long }).toEqual({ tool: t.name, long: [] });
        expect({ tool: t.name, outputProse: descriptions(t.outputSchema) }).toEqual({ tool: t.name, outputProse: [] });
      }
      // A property named `description` is kept (only the keyword goes).
      const start = tools.find((t) => t.name === 'start_task')!;
      expect(Object.keys((start.outputSchema!.properties as { node: { properties: object } }).node.properties)).toContain('description');
      // A graph file's tool is served as the file wrote it, prose included.
      const graphTool = tools.find((t) => t.name === 'sum_to_n')!;
      expect(descriptions(graphTool.outputSchema)).toContain('The sum from 1 to n');

      const listed = (await some.client.listTools()).tools;
      const otherModules = ['graph_inspect', 'add_nodes', 'list_nodes', 'get_node', 'delete_nodes', 'restore_nodes', 'search_nodes'];
      expect(listed.map((t) => t.name).sort()).toEqual(builtIn.map((t) => t.name).filter((n) => !otherModules.includes(n)).sort());
      expect(JSON.stringify({ tools: listed }).length).toBeLessThanOrEqual(WORKFLOW_TASKS_BUDGET);
    } finally {
      await all.close();
      await some.close();
      tmp.cleanup();
    }
  });
});
