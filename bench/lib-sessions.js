// The long session both workflow-session benches walk (files and PostgreSQL), and their tool call helper.

/** One step repeated in a loop long enough for any bench: a session of any length on one small workflow. */
const longSessionWorkflow = {
  id: 'bench-long',
  name: 'Bench long',
  description: 'one step repeated',
  version: '1.0.0',
  steps: [{ id: 'rounds', type: 'loop', title: 'Rounds', loop: { type: 'for', count: 100_000, maxIterations: 100_000 }, body: [{ id: 'work', title: 'Work', prompt: 'Do it.' }] }],
};

/** Calls a tool, failing the bench on an error result; returns the structured answer. */
async function callTool(client, name, args) {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

module.exports = { longSessionWorkflow, callTool };
