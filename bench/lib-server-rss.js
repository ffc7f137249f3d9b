// The built server's peak RSS over a project already stored (issue 23's "server peak RSS < 400 MiB"): the server is
// spawned as a client would (`node dist/cli/main.js serve`, stdio), driven by the SDK's client — list_nodes opens the
// project, then each search once — and its kernel high-water mark (VmHWM in /proc/<pid>/status) read after the last
// answer. Shared by bench/knowledge-search.js (files) and bench/knowledge-search-postgres.js. Linux only (/proc).
const fs = require('node:fs');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { CLI, tempDir, cleanEnv } = require('./lib.js');

function statusMb(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/**
 * Spawns `serve` with `serveArgs` (`--data-dir DIR` or `--database-url URL`), opens `projectContext` with list_nodes,
 * runs each of `queries` ([name, query]) once through search_nodes, and answers the server's peak RSS (MiB), its RSS
 * after start (before the project was opened), each call's time (ms; the first call of a project pays its opening) and
 * each search's total. The server runs in an empty folder of its own (a server reads ./workflows of its folder).
 */
async function serverPeakRss(serveArgs, projectContext, queries) {
  const cwd = tempDir('wg-bench-server-rss-');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', ...serveArgs], env: cleanEnv(), stderr: 'ignore', cwd });
  const client = new Client({ name: 'bench-server-rss', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  const call = async (name, args) => {
    const t = performance.now();
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 1_800_000 });
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
    return { ms: Math.round((performance.now() - t) * 10) / 10, out: r.structuredContent };
  };
  try {
    await call('workflow_list', {});
    const startedMb = statusMb(pid, 'VmHWM');
    const calls = {};
    const list = await call('list_nodes', { projectContext, limit: 10 });
    if (list.out.nodes.length !== 10) throw new Error(`list_nodes answered ${list.out.nodes.length} nodes`);
    calls.list_nodes = list.ms;
    const totals = {};
    for (const [name, query] of queries) {
      const s = await call('search_nodes', { projectContext, query, limit: 10 });
      if (!s.out.hits.length) throw new Error(`search_nodes '${query}' found nothing`);
      calls[name] = s.ms;
      totals[name] = s.out.total;
    }
    return { peakMb: statusMb(pid, 'VmHWM'), startedMb, rssMb: statusMb(pid, 'VmRSS'), calls, totals, load: os.loadavg()[0] };
  } finally {
    await client.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

module.exports = { serverPeakRss, statusMb };
