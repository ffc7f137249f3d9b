#!/usr/bin/env node
/**
 * Screenshots of every dashboard page, over a data dir the real MCP server fills: a 13-task project, a 100-task one, a
 * finished and a forked workflow session, knowledge nodes and recorded graph runs. Needs the build (npm run build)
 * and Chromium (CHROME_PATH or /usr/bin/chromium).
 *
 *   node scripts/dashboard-screenshots.js [OUT_DIR]     every page at 1400×900 and 900×700 (default test-artifacts/screens)
 *   node scripts/dashboard-screenshots.js --docs         the main pages at 1400×900 into docs/images/
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { chromium } = require('playwright-core');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist/cli/main.js');
const GRAPH = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');
const docs = process.argv.includes('--docs');
const out = docs ? path.join(ROOT, 'docs/images') : path.resolve(process.argv[2] ?? path.join(ROOT, 'test-artifacts/screens'));

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

const SHOP = [
  ['setup', 'Set up the repository and CI', []],
  ['auth', 'User sign-up and login with email verification', ['setup']],
  ['catalog', 'Product catalog with categories and images', ['setup']],
  ['db', 'Database schema and migrations', ['setup']],
  ['search', 'Full-text product search', ['catalog']],
  ['cart', 'Shopping cart that survives a reload', ['catalog', 'auth']],
  ['profile', 'User profile page', ['auth']],
  ['reviews', 'Product reviews and ratings', ['catalog', 'auth']],
  ['analytics', 'Usage analytics events', ['db']],
  ['admin', 'Admin dashboard for products and orders', ['catalog', 'reviews']],
  ['checkout', 'Checkout with card payments', ['cart', 'db']],
  ['emails', 'Transactional emails', ['auth', 'cart']],
  ['deploy', 'Deploy to production', ['setup', 'search', 'cart']],
];

/** 100 tasks in 10 layers, each depending on one or two tasks of the layers before. */
function platform() {
  const areas = ['API', 'worker', 'billing', 'search index', 'web app', 'mobile app', 'reports', 'auth service', 'notifications', 'admin tools'];
  const verbs = ['Design the', 'Build the', 'Test the', 'Document the', 'Load-test the', 'Secure the', 'Monitor the', 'Migrate the', 'Review the', 'Ship the'];
  const nodes = [];
  for (let i = 0; i < 100; i++) {
    const layer = Math.floor(i / 10);
    const deps = layer === 0 ? [] : [`t${(i * 7) % 10 + (layer - 1) * 10}`, ...(i % 3 === 0 && layer > 1 ? [`t${(i * 3) % 10 + (layer - 2) * 10}`] : [])];
    nodes.push({ id: `t${i}`, title: `${verbs[layer]} ${areas[i % 10]}`, depends_on: [...new Set(deps)], ...(i < 10 ? { validation_command: 'true' } : {}) });
  }
  return nodes;
}

async function seed(client, projectRoot) {
  await call(client, 'init_project_graph', { projectName: 'Shop', projectRoot, nodes: SHOP.map(([id, title, depends_on]) => ({ id, title, depends_on, ...(id === 'db' ? { validation_command: 'echo "relation users already exists" >&2; exit 1', max_attempts: 3 } : { validation_command: 'true' }) })) });
  for (const id of ['setup', 'auth', 'catalog', 'db']) {
    await call(client, 'start_task', { project: 'Shop', nodeId: id });
    await call(client, 'validate_task_loop', { project: 'Shop', nodeId: id });
  }
  await call(client, 'init_project_graph', { projectName: 'Platform', projectRoot, nodes: platform() });
  for (let i = 0; i < 10; i++) {
    await call(client, 'start_task', { project: 'Platform', nodeId: `t${i}` });
    await call(client, 'validate_task_loop', { project: 'Platform', nodeId: `t${i}` });
  }
  // A finished fix-failing-test session (a loop run twice) and a forked one.
  const s = await call(client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'the sum test fails' });
  let token = s.continueToken;
  for (const [notesMarkdown, context] of [
    ['The test failed: expected 10, got 11', { testCommand: 'npm test -- sum', failureKind: 'deterministic' }],
    ['Found it in `src/sum.ts:12`:\n- the loop runs one step too far\n- the test is right'],
    ['Attempt 1: the loop bound is off by one, so use `<` instead of `<=`.'],
    ['The test still fails after the change', { testPasses: false }],
    ['Attempt 2: the accumulator starts at 1; start it at 0 instead.'],
    ['The test passes now', { testPasses: true }],
    ['All 120 tests passed'],
    ['Fix the sum\n\nThe root cause: the accumulator started at 1.'],
  ]) {
    const r = await call(client, 'workflow_continue', { continueToken: token, output: { notesMarkdown }, ...(context ? { context } : {}) });
    token = r.continueToken;
  }
  const f = await call(client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'checkout test is flaky' });
  const r1 = await call(client, 'workflow_continue', { continueToken: f.continueToken, output: { notesMarkdown: 'The test failed twice in 20 runs' }, context: { testCommand: 'npm test -- checkout', failureKind: 'flaky' } });
  const cp = await call(client, 'workflow_checkpoint', { continueToken: r1.continueToken, note: 'before stabilising' });
  await call(client, 'workflow_continue', { continueToken: r1.continueToken, output: { notesMarkdown: 'Retrying with a fixed seed did not make it fail every time: still 2 in 20.' } });
  await call(client, 'workflow_continue', { continueToken: cp.checkpointToken, output: { notesMarkdown: 'Faking the clock makes it fail every run: the test reads **Date.now()** twice.' } });
  const added = await call(client, 'add_nodes', {
    projectContext: projectRoot,
    nodes: [
      { thought: 'Use a recursive descent parser for the config language', role: 'actor', tags: ['design', 'parser'] },
      { thought: 'Recursive descent is fine; watch the error messages', role: 'critic', tags: ['review'] },
      { thought: 'An idea to drop: generate the parser with a tool', role: 'actor', tags: ['design'] },
    ],
  });
  await call(client, 'delete_nodes', { projectContext: projectRoot, nodeIds: [added.ids[2]], reason: 'superseded by the hand-written parser' });
  const runs = [];
  for (const n of [5, 3]) {
    const r = await client.callTool({ name: 'sum_to_n', arguments: { n } });
    runs.push(r._meta['workgraph/executionId']);
  }
  return { complete: s.sessionId, forked: f.sessionId, runs, knowledge: path.basename(projectRoot) };
}

function startDashboard(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'dashboard', '--port', '0', '--graphs', GRAPH], { env: { ...process.env, WORKGRAPH_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      const m = /(http:\/\/\S+)/.exec(text);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited with ${code}`)));
  });
}

(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-screens-'));
  const projectRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-screens-root-'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--graphs', GRAPH, '--allow-root', projectRoot], env: { ...process.env, WORKGRAPH_DATA_DIR: dataDir }, stderr: 'ignore' });
  const client = new Client({ name: 'screenshots', version: '1' });
  await client.connect(transport);
  const seeded = await seed(client, projectRoot);
  const dash = await startDashboard(dataDir);
  const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  fs.mkdirSync(out, { recursive: true });
  const kp = encodeURIComponent(seeded.knowledge);
  const pages = [
    ['overview', '#/', 'tr[data-project]'],
    ['dag', '#/tasks/shop', '.task-node'],
    ['task-details', '#/tasks/shop', '.task-node', async (p) => { await p.locator('.task-node[data-task="db"]').click(); await p.locator('[data-testid="task-details"]').waitFor(); }],
    ['dag-100', '#/tasks/platform', '.task-node'],
    ['sessions', '#/sessions', '[data-testid="sessions"]'],
    ['session', `#/sessions/${seeded.complete}`, '[data-testid="steps"]'],
    ['session-forked', `#/sessions/${seeded.forked}`, '[data-testid="branches"]'],
    ['graph-tools', '#/graphs', '[data-testid="graph-tools"]'],
    ['graph', '#/graphs/sum_to_n', '.react-flow__node'],
    ['run', `#/runs/${seeded.runs[0]}`, '[data-testid="timeline"] .exec', async (p) => { await p.locator('[data-testid="timeline"] .exec').nth(3).click(); await p.locator('[data-testid="execution"] h2').waitFor(); }],
    ['knowledge', `#/knowledge/${kp}`, '.knodes li'],
  ];
  const DOCS = new Set(['overview', 'task-details', 'dag-100', 'session', 'graph', 'run']);
  const sizes = docs ? [[1400, 900]] : [[1400, 900], [900, 700]];
  for (const [w, h] of sizes) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await ctx.newPage();
    await page.goto(dash.url);
    for (const [name, hash, ready, act] of pages) {
      if (docs && !DOCS.has(name)) continue;
      await page.goto(`${dash.url.split('#')[0]}${hash}`);
      await page.locator(ready).first().waitFor({ timeout: 30_000 });
      if (act) await act(page);
      await page.waitForTimeout(400);
      const file = path.join(out, docs ? `dashboard-${name}.png` : `${name}-${w}x${h}.png`);
      await page.screenshot({ path: file });
      process.stdout.write(`${path.relative(ROOT, file)}\n`);
    }
    await ctx.close();
  }
  await browser.close();
  dash.stop();
  await client.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(projectRoot, { recursive: true, force: true });
})().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
