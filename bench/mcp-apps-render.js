// MCP Apps (docs/mcp-apps.md): the task DAG view's first render of a 5,000-task DAG beside the dashboard's page of
// the same DAG, in the same run, in headless Chromium (playwright-core over a system Chromium, as the browser tests):
// - view: the view's HTML (resources/read of ui://workgraph/task-dag by the SDK v2 client declaring the extension)
//   framed by the extension SDK's own host side (AppBridge, tests/e2e/helpers/apps-host/host-page.ts) and handed
//   get_project_graph's result, timed from the host page starting to frame it to the first task title on screen
//   (goal ≤ 2× the dashboard), with its parts: document (to its HTML parsed, the inline script compiled), modules
//   (the script evaluated), handshake (to the host hearing initialized), bridge (the result sent to the view holding
//   it), render (to its first title), beside a bare postMessage of the same result into a sandboxed frame;
// - dashboard: its #/tasks/<project> page, timed from the navigation's start to the first task title on screen, with
//   its parts: document, data (the graph's answer parsed: api.ts's mark), render;
// - both sides timed alike by FIRST_TITLE_WATCH, run in every document by the document's own clock: no Playwright
//   locator or polling inside a document while it is timed;
// - the same for a 400-task DAG, the largest ELK lays out (routed edges): the view reads ELK's worker script through
//   the host (resources/read of ui://workgraph/assets/elk-worker.js.gz, src/dashboard/web/src/elk-engine-inline.ts),
//   the dashboard loads it by URL;
// - BENCH_APPS_AB_HTML=<file>: another task-dag document framed alternately with this one (an A/B of a change; a
//   built document gets the served one's settings);
// - the resource's size beside the dashboard's bundle (every asset it may load, and those its DAG page loads).
// Medians of BENCH_APPS_RUNS (default 5) interleaved runs, the load average beside each figure. 2026-12-02, shared
// 2-core machine: 5,000 tasks 1.32, 1.57, 1.28 at load 15-17 (e.g. 1,333 vs 1,045 ms), 1.96 as the load fell to 9-10
// (673 vs 343 ms); timed the way this bench did before (Playwright's locator in the view's frame) the same runs at load
// 12-16 gave 2.20 where this timing gave 1.32. Parts at load 10: view document 183, modules 80, handshake 38, bridge
// 157 (bare postMessage 244), render 203 ms; dashboard document 76, data 151, render 142 ms (docs/mcp-apps.md
// "Speed and size").
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { ROOT, CLI, tempDir, cleanEnv, stats, report } = require('./lib.js');

const RUNS = Number(process.env.BENCH_APPS_RUNS || 5);

function chromiumPath() {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error("No Chromium found: install Debian's chromium (apt-get install chromium) or set CHROME_PATH");
  return found;
}

/** 50 layers of 100 tasks, each depending on one or two of the layer before (bench/dashboard.js's DAG). */
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

/**
 * Installed in every document of the browser (the dashboard's page, the host page, the view's frame) before its own
 * scripts: each animation frame it looks for the first task title on screen (laid out, not hidden) and reports, once,
 * when (ms since the epoch, this document's clock) with the document's navigation timing and performance marks.
 * The same criterion and the same clock on both sides, and nothing of Playwright's own (its locators' injected
 * script and polling) runs in a document while it is being timed.
 */
const FIRST_TITLE_WATCH = `(() => {
  const until = performance.now() + 120000;
  const visible = (el) => el && getComputedStyle(el).visibility !== 'hidden';
  const check = () => {
    const t = document.querySelector('.task-node .task-title');
    const r = t && t.getBoundingClientRect();
    if (r && r.width > 0 && visible(t) && visible(t.closest('.react-flow__node'))) {
      const abs = (ms) => (ms === undefined ? undefined : performance.timeOrigin + ms);
      const nav = performance.getEntriesByType('navigation')[0];
      const marks = performance.getEntriesByType('mark').map((m) => ({ name: m.name, at: abs(m.startTime), detail: m.detail }));
      window.__wgFirstTitle({ at: abs(performance.now()), origin: performance.timeOrigin, interactive: abs(nav?.domInteractive), contentLoaded: abs(nav?.domContentLoadedEventStart), marks });
    } else if (performance.now() < until) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

function startDashboard(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'dashboard', '--port', '0', '--data-dir', dataDir], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+\?token=\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited ${code}`)));
  });
}

async function main() {
  const { chromium } = require('playwright-core');
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const dataDir = tempDir('wg-bench-apps-');
  const projectRoot = tempDir('wg-bench-apps-root-');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--allow-root', projectRoot], env: { ...cleanEnv(), WORKGRAPH_DATA_DIR: dataDir }, stderr: 'inherit' });
  const client = new Client({ name: 'bench-apps-host', version: '1' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
  await client.connect(transport);
  const hostScriptFile = path.join(os.tmpdir(), `wg-bench-apps-host-${process.pid}.js`);
  execFileSync(process.execPath, [path.join(ROOT, 'tests', 'e2e', 'helpers', 'apps-host', 'build-host.mjs'), hostScriptFile], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const hostScript = fs.readFileSync(hostScriptFile, 'utf8');
  fs.rmSync(hostScriptFile, { force: true });

  const init = await client.callTool({ name: 'init_project_graph', arguments: { projectName: 'dag 5000', projectRoot, nodes: layeredNodes(50, 100) } });
  if (init.isError) throw new Error(JSON.stringify(init.content));
  const result = await client.callTool({ name: 'get_project_graph', arguments: { project: 'dag-5000' } });
  const init400 = await client.callTool({ name: 'init_project_graph', arguments: { projectName: 'dag 400', projectRoot, nodes: layeredNodes(20, 20) } });
  if (init400.isError) throw new Error(JSON.stringify(init400.content));
  const result400 = await client.callTool({ name: 'get_project_graph', arguments: { project: 'dag-400' } });
  const html = (await client.readResource({ uri: 'ui://workgraph/task-dag' })).contents[0].text;

  const executablePath = chromiumPath();
  const dash = await startDashboard(dataDir);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-bench-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  // Each document's first title, as its own watcher reports it (FIRST_TITLE_WATCH).
  let onFirstTitle;
  await context.exposeBinding('__wgFirstTitle', (_source, seen) => onFirstTitle?.(seen));
  await context.addInitScript(FIRST_TITLE_WATCH);
  const firstTitle = () => {
    let timer;
    return Promise.race([
      new Promise((resolve) => (onFirstTitle = resolve)),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no task title on screen within 120 s')), 120_000))),
    ]).finally(() => clearTimeout(timer));
  };
  const page = await context.newPage();
  // The host passes the view's resource reads to the server (ELK's worker script, read by a view with a DAG small
  // enough for ELK), as the test host does.
  const reads = [];
  await page.exposeFunction('hostReadResource', async (uri) => {
    reads.push(uri);
    return client.readResource({ uri });
  });
  await page.exposeFunction('hostCallTool', async (name, args) => client.callTool({ name, arguments: args }));
  /**
   * Where a view's first render goes (ms, from the host page's and the view's clocks): document — the frame created
   * to its HTML parsed (the inline script compiled); modules — the script evaluated; handshake — to the host hearing
   * `initialized`; bridge — the result sent to the view holding it; render — to its first title.
   */
  const viewParts = () => ({ document: [], modules: [], handshake: [], bridge: [], render: [] });
  /** The dashboard page's: document — navigation to its HTML parsed; data — to the graph's answer parsed; render. */
  const dashboardParts = () => ({ document: [], data: [], render: [] });
  let parts = viewParts();
  let dparts = dashboardParts();
  const markAt = (seen, name, detail) => seen.marks.find((m) => m.name === name && (detail === undefined || m.detail === detail))?.at;
  try {
    const viewRender = async (handed = result, doc = html) => {
      await page.goto('about:blank');
      await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"></body></html>');
      await page.addScriptTag({ content: hostScript });
      // The document and the result are in the host page before the clock starts (a host has both in hand; moving
      // 4 MB through the debugging protocol is not the view's cost).
      await page.evaluate((o) => (window.__bench = o), { html: doc, result: handed, width: 1380, height: 880, resources: true });
      const seen = firstTitle();
      // The clock starts in the host page as it frames the view (wgHost.timings.loadStart).
      await page.evaluate(() => void window.wgHost.load(window.__bench));
      const title = await seen;
      const host = await page.evaluate(() => window.wgHost.timings);
      // The view's own mark of the result in hand (a document without it — BENCH_APPS_AB_HTML's older one — has no parts).
      const inHand = markAt(title, 'workgraph:tool-result');
      if (doc === html && inHand !== undefined) {
        parts.document.push(title.interactive - host.loadStart);
        parts.modules.push(title.contentLoaded - title.interactive);
        parts.handshake.push(host.initialized - title.contentLoaded);
        parts.bridge.push(inHand - host.resultSent);
        parts.render.push(title.at - inHand);
      }
      return title.at - host.loadStart;
    };
    /**
     * The result crossing postMessage bare, into a sandboxed frame as the view's (structured clone, no SDK): from
     * posting it to the frame's listener holding it, deserialized.
     */
    const barePostMessage = async (handed = result) => {
      await page.goto('about:blank');
      await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>');
      await page.evaluate((r) => (window.__result = r), handed);
      return page.evaluate(
        () =>
          new Promise((resolve) => {
            const f = document.createElement('iframe');
            f.setAttribute('sandbox', 'allow-scripts');
            // The message's data is deserialized when first read: read it, then take the time.
            f.srcdoc = '<script>addEventListener("message", (e) => { const n = e.data.params.structuredContent.nodes.length; parent.postMessage({ at: performance.timeOrigin + performance.now(), n }, "*") });parent.postMessage("ready", "*")</script>';
            let sent = 0;
            addEventListener('message', (e) => {
              if (e.data === 'ready') {
                sent = performance.timeOrigin + performance.now();
                f.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: window.__result }, '*');
              } else resolve(e.data.at - sent);
            });
            document.body.appendChild(f);
          }),
      );
    };
    /** From the navigation's start (the page's time origin) to its first title, by the page's own clock. */
    const dashboardRender = async (project = 'dag-5000') => {
      await page.goto('about:blank');
      const seen = firstTitle();
      await page.goto(`${dash.url}#/tasks/${project}`);
      const title = await seen;
      const data = markAt(title, 'workgraph:api', `/projects/${project}/tasks`);
      if (project === 'dag-5000' && data !== undefined) {
        dparts.document.push(title.interactive - title.origin);
        dparts.data.push(data - title.interactive);
        dparts.render.push(title.at - data);
      }
      return title.at - title.origin;
    };
    const median = (xs) => Math.round(stats(xs).median * 10) / 10;
    const medians = (p) => Object.fromEntries(Object.entries(p).map(([k, xs]) => [`${k}Ms`, xs.length ? median(xs) : null]));
    const load = () => os.loadavg().map((x) => Math.round(x * 10) / 10);
    const loadBefore = load();
    const view = [];
    const dashboard = [];
    const bare = [];
    for (let i = 0; i < RUNS; i++) {
      view.push(await viewRender());
      dashboard.push(await dashboardRender());
      bare.push(await barePostMessage());
    }
    report('mcp-apps-render', 'DAG 5,000 tasks: first task title on screen, view vs dashboard page', stats(view).median, stats(dashboard).median, 'ms', {
      baselineIs: "the dashboard's #/tasks page of the same DAG, same run",
      goalRatio: 2,
      resultBytes: JSON.stringify(result).length,
      viewParts: medians(parts),
      dashboardParts: medians(dparts),
      barePostMessageMs: median(bare),
      elkReads: reads.length,
      loadAverage: { before: loadBefore, after: load() },
    });
    parts = viewParts();
    // An A/B of two documents in the same run: BENCH_APPS_AB_HTML names another task-dag document (e.g. one built
    // before a change), framed alternately with this one, same result.
    if (process.env.BENCH_APPS_AB_HTML) {
      // A document as built (dist/dashboard/views) lacks the settings the server writes into what it serves
      // (src/server/mcp-apps.ts): it gets the served one's, so both sides poll to stay live and offer the same actions.
      const settings = /<meta name="workgraph-view"[^>]*>/.exec(html)?.[0] ?? '';
      const built = fs.readFileSync(process.env.BENCH_APPS_AB_HTML, 'utf8');
      const other = built.includes('name="workgraph-view"') ? built : built.replace('<head>', () => `<head>${settings}`);
      const a = [];
      const b = [];
      const before = load();
      for (let i = 0; i < RUNS; i++) {
        a.push(await viewRender(result, html));
        b.push(await viewRender(result, other));
      }
      report('mcp-apps-render', `DAG 5,000 tasks: this view's document vs ${path.basename(process.env.BENCH_APPS_AB_HTML)} (${Buffer.byteLength(other)} bytes)`, stats(a).median, stats(b).median, 'ms', {
        baselineIs: 'the other document, same result, alternately',
        viewParts: medians(parts),
        loadAverage: { before, after: load() },
      });
      parts = viewParts();
    }
    const view400 = [];
    const dashboard400 = [];
    const before400 = load();
    for (let i = 0; i < RUNS; i++) {
      view400.push(await viewRender(result400));
      dashboard400.push(await dashboardRender('dag-400'));
    }
    report('mcp-apps-render', 'DAG 400 tasks (ELK, routed edges): first task title on screen, view vs dashboard page', stats(view400).median, stats(dashboard400).median, 'ms', {
      baselineIs: "the dashboard's #/tasks page of the same DAG (ELK in its worker too), same run",
      viewParts: medians(parts),
      // One read of ELK's worker script per view (each framing is a new document).
      elkReads: reads.length,
      loadAverage: { before: before400, after: load() },
    });

    const assets = path.join(ROOT, 'dist', 'dashboard', 'web', 'assets');
    const files = fs.readdirSync(assets).map((f) => ({ f, bytes: fs.statSync(path.join(assets, f)).size }));
    const all = files.reduce((n, x) => n + x.bytes, 0);
    // What the DAG page loads: the entry and its styles, the TaskDag chunk and every chunk it imports, transitively
    // (React Flow's shared chunk is named after whichever module the bundler picks); ELK's worker only for DAGs of
    // 400 tasks or fewer.
    const onPage = new Set(files.filter((x) => /^index-/.test(x.f)).map((x) => x.f));
    const queue = files.filter((x) => /^TaskDag-/.test(x.f)).map((x) => x.f);
    while (queue.length) {
      const f = queue.pop();
      if (onPage.has(f) && !/^index-/.test(f)) continue;
      onPage.add(f);
      for (const m of fs.readFileSync(path.join(assets, f), 'utf8').matchAll(/from\s*"\.\/([^"]+\.js)"/g)) if (!onPage.has(m[1])) queue.push(m[1]);
    }
    const dagPage = files.filter((x) => onPage.has(x.f)).reduce((n, x) => n + x.bytes, 0);
    report('mcp-apps-render', "task-dag view resource size vs the dashboard's DAG page bundle", Buffer.byteLength(html), dagPage, 'bytes', {
      baselineIs: "the dashboard's entry, styles, the TaskDag chunk and the chunks it imports",
      dagPageFiles: [...onPage].sort(),
      dashboardAllAssetsBytes: all,
      ratioToAllAssets: Math.round((Buffer.byteLength(html) / all) * 100) / 100,
    });
  } finally {
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
