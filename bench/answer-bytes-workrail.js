// The bytes of a workflow step answer, workgraph beside WorkRail, for the same step of the same workflow (issue 11:
// "measure the bytes of a typical answer ... beside WorkRail's for the same step"). The workflows are WorkRail's own
// (a copy is in tests/fixtures/workrail/workflows); the step is each one's first real step (WorkRail hands out an
// onboarding step first, acknowledged with one continue_workflow). Bytes are the whole tools/call result as the
// client receives it (JSON), so workgraph's structuredContent + its text copy count against it; then the text content
// alone (what a model is shown) and workgraph's step text alone.
//
// WorkRail is not published on the npm registry, so it is not a dependency: build it from its repository
// (`npm ci --ignore-scripts && npx tsc -p tsconfig.build.json`) and point WORKRAIL_MCP at its dist/mcp-server.js.
// Without WORKRAIL_MCP this bench says so on stderr and prints no figure.
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, connect, cleanEnv, workgraph, report, tempDir } = require('./lib.js');

const WORKFLOWS = ['wr.discovery', 'wr.bug-investigation', 'wr.coding-task', 'wr.mr-review'];

const bytes = (result) => Buffer.byteLength(JSON.stringify(result));

async function workrailFirstStep(client, workflowId, workspace) {
  const start = await client.callTool({ name: 'start_workflow', arguments: { workflowId, workspacePath: workspace, goal: 'Measure one answer' } });
  if (start.isError) throw new Error(`WorkRail start_workflow ${workflowId}: ${start.content[0].text}`);
  const token = /"continueToken":"([^"]+)"/.exec(start.content[0].text)?.[1];
  if (!token) throw new Error(`WorkRail start_workflow ${workflowId}: no continueToken in the answer`);
  const next = await client.callTool({
    name: 'continue_workflow',
    arguments: { continueToken: token, workspacePath: workspace, output: { notesMarkdown: 'Acknowledged.' } },
  });
  if (next.isError) throw new Error(`WorkRail continue_workflow ${workflowId}: ${next.content[0].text}`);
  const stepId = /stepId: ([^\s>]+)/.exec(next.content[0].text)?.[1];
  return { result: next, stepId };
}

async function main() {
  const server = process.env.WORKRAIL_MCP;
  if (!server || !fs.existsSync(server)) {
    console.error('answer-bytes-workrail: WorkRail not measured: set WORKRAIL_MCP to a built WorkRail dist/mcp-server.js (see the head of this file)');
    return;
  }
  const home = tempDir('wg-bench-workrail-home-');
  const workspace = tempDir('wg-bench-workrail-ws-');
  const wr = await connect(process.execPath, [server], { ...cleanEnv(), HOME: home });
  const dataDir = tempDir('wg-bench-answer-bytes-');
  const wg = await workgraph(['--data-dir', dataDir, '--workflows', path.join(ROOT, 'tests', 'fixtures', 'workrail', 'workflows')]);
  try {
    for (const workflowId of WORKFLOWS) {
      const theirs = await workrailFirstStep(wr, workflowId, workspace);
      const next = await wg.callTool({ name: 'workflow_next', arguments: { workflowId, completedSteps: [], context: {} } });
      const started = await wg.callTool({ name: 'workflow_start', arguments: { workflowId, goal: 'Measure one answer', workspacePath: workspace } });
      if (next.isError || started.isError) throw new Error(`workgraph ${workflowId}: ${(next.isError ? next : started).content[0].text}`);
      const ours = next.structuredContent.step.id;
      if (ours !== theirs.stepId) throw new Error(`${workflowId}: workgraph's first step is ${ours}, WorkRail's ${theirs.stepId}`);
      const extra = { workflowId, stepId: ours };
      report('answer-bytes', 'workflow_next answer vs WorkRail continue_workflow, same step', bytes(next), bytes(theirs.result), 'bytes', extra);
      report('answer-bytes', 'workflow_start answer vs WorkRail continue_workflow, same step', bytes(started), bytes(theirs.result), 'bytes', extra);
      // What a model is shown: the text content (clients hand the model the text block; structuredContent is for code).
      const text = (r) => Buffer.byteLength(r.content.map((c) => c.text ?? '').join(''));
      report('answer-bytes', 'workflow_next text content vs WorkRail text content, same step', text(next), text(theirs.result), 'bytes', extra);
      report('answer-bytes', 'workflow_next step text (guidance.prompt) vs WorkRail text content, same step', Buffer.byteLength(next.structuredContent.guidance.prompt), text(theirs.result), 'bytes', extra);
    }
  } finally {
    await wr.close();
    await wg.close();
    for (const d of [home, workspace, dataDir]) fs.rmSync(d, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
