// The web dashboard in headless Chromium (playwright-core over a system Chromium, as the browser tests use):
// - overview with 100 projects: navigation to all 100 project rows on screen, beside a static page of the same size
//   (the rendered overview saved as HTML) served by the same server;
// - task DAG page: navigation to the first task title on screen for 5,000 nodes, beside 50 nodes (goal ≤ 10x); and
//   for 400 nodes, the largest DAG ELK lays out with routed edges (in its Web Worker), beside the same 50 nodes;
// - one live status change (validate_task_loop by the MCP server) to its node showing COMPLETED on the open 5,000-node
//   page (goal < 5 s), beside the same on the 50-node page.
// Medians of BENCH_DASHBOARD_RUNS (default 5) interleaved runs.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { ROOT, CLI, tempDir, cleanEnv, workgraph, stats, report } = require('./lib.js');

const RUNS = Number(process.env.BENCH_DASHBOARD_RUNS || 5);
const PROJECTS = 100;

function chromiumPath() {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error("No Chromium found: install Debian's chromium (apt-get install chromium) or set CHROME_PATH");
  return found;
}

async function callTool(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

/** A layered DAG: `layers` layers of `width` tasks, each depending on one or two tasks of the layer before. */
function layeredNodes(layers, width) {
  const nodes = [];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < width; i++) {
      const deps = l === 0 ? [] : [`t${l - 1}-${i}`, ...(i + 1 < width && i % 3 === 0 ? [`t${l - 1}-${i + 1}`] : [])];
      nodes.push({ id: `t${l}-${i}`, title: `Task ${l}.${i}: implement part ${i} of stage ${l}`, depends_on: deps, validation_command: 'true' });
    }
  }
  return nodes;
}

function startDashboard(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'dashboard', '--port', '0', '--data-dir', dataDir], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+\?token=\S+)/.exec(out);
      if (m) resolve({ child, url: m[1], origin: new URL(m[1]).origin });
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited ${code}`)));
  });
}

async function timedNavigation(page, url, selector, count) {
  await page.goto('about:blank');
  const t0 = performance.now();
  await page.goto(url);
  if (count === undefined) await page.locator(selector).first().waitFor({ timeout: 120_000 });
  else await page.waitForFunction(([s, n]) => document.querySelectorAll(s).length >= n, [selector, count], { timeout: 120_000 });
  return performance.now() - t0;
}

async function main() {
  const { chromium } = require('playwright-core');
  const dataDir = tempDir('wg-bench-dash-');
  const projectRoot = tempDir('wg-bench-dash-root-');
  const client = await workgraph(['--allow-root', projectRoot], { WORKGRAPH_DATA_DIR: dataDir });
  for (let p = 0; p < PROJECTS - 2; p++) {
    await callTool(client, 'init_project_graph', { projectName: `project ${p}`, projectRoot, nodes: layeredNodes(2, 5) });
  }
  await callTool(client, 'init_project_graph', { projectName: 'dag 50', projectRoot, nodes: layeredNodes(5, 10) });
  await callTool(client, 'init_project_graph', { projectName: 'dag 5000', projectRoot, nodes: layeredNodes(50, 100) });
  await callTool(client, 'init_project_graph', { projectName: 'dag 400', projectRoot, nodes: layeredNodes(10, 40) });
  const dash = await startDashboard(dataDir);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-bench-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await context.newPage();
  const staticFile = path.join(ROOT, 'dist', 'dashboard', 'web', '__bench-overview-static.html');
  try {
    // The static baseline: the rendered overview (same rows, same size) as a plain HTML file from the same server.
    await page.goto(dash.url);
    await page.waitForFunction((n) => document.querySelectorAll('tr[data-project]').length >= n, PROJECTS, { timeout: 120_000 });
    const html = await page.evaluate(() => {
      const styles = [...document.querySelectorAll('link[rel=stylesheet], style')].map((e) => e.outerHTML).join('');
      return `<!doctype html><html><head><meta charset="utf-8">${styles}</head><body>${document.getElementById('root').outerHTML}</body></html>`;
    });
    fs.writeFileSync(staticFile, html.replaceAll('href="./assets/', 'href="assets/'));
    const overview = [];
    const statik = [];
    for (let i = 0; i < RUNS; i++) {
      overview.push(await timedNavigation(page, dash.url, 'tr[data-project]', PROJECTS));
      statik.push(await timedNavigation(page, `${dash.origin}/__bench-overview-static.html`, 'tr[data-project]', PROJECTS));
    }
    report('dashboard', 'overview 100 projects: first load to content', stats(overview).median, stats(statik).median, 'ms', { baselineIs: 'static page of the same size, same server', htmlBytes: html.length });

    const small = [];
    const large = [];
    const routed = [];
    for (let i = 0; i < RUNS; i++) {
      small.push(await timedNavigation(page, `${dash.url}#/tasks/dag-50`, '.task-node .task-title'));
      large.push(await timedNavigation(page, `${dash.url}#/tasks/dag-5000`, '.task-node .task-title'));
      routed.push(await timedNavigation(page, `${dash.url}#/tasks/dag-400`, '.task-node .task-title'));
    }
    report('dashboard', 'DAG 5,000 nodes: time to first task title', stats(large).median, stats(small).median, 'ms', { baselineIs: 'the 50-node DAG', goalRatio: 10 });
    report('dashboard', 'DAG 400 nodes (ELK layout, routed edges): time to first task title', stats(routed).median, stats(small).median, 'ms', { baselineIs: 'the 50-node DAG (ELK too)' });

    const live = async (project, nodeId) => {
      await page.goto(`${dash.url}#/tasks/${project}`);
      await page.locator(`.task-node[data-task="${nodeId}"]`).waitFor({ timeout: 120_000 });
      await callTool(client, 'start_task', { project, nodeId });
      const t0 = performance.now();
      await callTool(client, 'validate_task_loop', { project, nodeId });
      await page.locator(`.task-node[data-task="${nodeId}"][data-status="COMPLETED"]`).waitFor({ timeout: 60_000 });
      return performance.now() - t0;
    };
    const liveSmall = [];
    const liveLarge = [];
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      liveSmall.push(await live('dag-50', `t0-${i}`));
      liveLarge.push(await live('dag-5000', `t0-${i}`));
    }
    report('dashboard', 'DAG 5,000 nodes: one live status change on screen', stats(liveLarge).median, stats(liveSmall).median, 'ms', { baselineIs: 'the same on the 50-node DAG', goalMs: 5000, maxMs: Math.round(Math.max(...liveLarge)) });
  } finally {
    fs.rmSync(staticFile, { force: true });
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
    dash.child.kill('SIGTERM');
    await client.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(projectRoot, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
