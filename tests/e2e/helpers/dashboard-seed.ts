import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export const SUM_TO_N = path.resolve(__dirname, '../../../examples/graphs/sum_to_n.yaml');

export type Structured = Record<string, any>;

/** A tool call through the real MCP client; throws with the error text when the tool failed. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Structured;
}

/**
 * A data dir as agents leave it: project `Demo App` (a COMPLETED, b READY with a failed attempt… after `failB`),
 * a knowledge project with a deleted node, and a recorded sum_to_n run.
 */
export async function seed(client: Client, projectRoot: string): Promise<{ runId: string; deletedId: string; keptIds: string[] }> {
  await call(client, 'init_project_graph', {
    projectName: 'Demo App',
    projectRoot,
    nodes: [
      { id: 'setup', title: 'Set up the repository', description: 'Create the skeleton.', depends_on: [], validation_command: 'true' },
      { id: 'build', title: 'Build the parser', depends_on: ['setup'], validation_command: 'echo parse error >&2; exit 3', max_attempts: 3 },
      { id: 'docs', title: 'Write the docs', depends_on: ['setup'], validation_command: 'true' },
      { id: 'release', title: 'Release 1.0', depends_on: ['build', 'docs'] },
    ],
  });
  await call(client, 'start_task', { project: 'Demo App', nodeId: 'setup' });
  await call(client, 'validate_task_loop', { project: 'Demo App', nodeId: 'setup' });
  await call(client, 'start_task', { project: 'Demo App', nodeId: 'build' });
  await call(client, 'validate_task_loop', { project: 'Demo App', nodeId: 'build' });

  const added = await call(client, 'add_nodes', {
    projectContext: '/work/demo-notes',
    nodes: [
      { thought: 'Use a recursive descent parser for the config language', role: 'actor', tags: ['design', 'parser'] },
      { thought: 'Recursive descent is fine; watch the error messages', role: 'critic', tags: ['review'] },
      { thought: 'An idea to drop: generate the parser with a tool', role: 'actor', tags: ['design'] },
    ],
  });
  const ids = added.ids as string[];
  await call(client, 'delete_nodes', { projectContext: '/work/demo-notes', nodeIds: [ids[2]], reason: 'superseded by the hand-written parser' });

  const r = await client.callTool({ name: 'sum_to_n', arguments: { n: 4 } });
  const runId = (r._meta as Record<string, string>)['workgraph/executionId'];
  return { runId, deletedId: ids[2], keptIds: ids.slice(0, 2) };
}
