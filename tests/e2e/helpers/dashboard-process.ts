import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { assertBuilt, CLI } from './server-process';

export interface DashboardProcess {
  /** The printed URL (with ?token=). */
  url: string;
  /** `http://host:port` */
  origin: string;
  token: string;
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts the built `workgraph dashboard` on a free port over `dataDir` and waits for the URL it prints. */
export async function startDashboardProcess(opts: { dataDir: string; args?: string[]; env?: Record<string, string> }): Promise<DashboardProcess> {
  assertBuilt();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const child = spawn(process.execPath, [CLI, 'dashboard', '--port', '0', '--data-dir', opts.dataDir, ...(opts.args ?? [])], {
    env: { ...env, WORKGRAPH_LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dashboard printed no URL in 60 s; stderr: ${err}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/\S+\?token=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dashboard exited with ${code}; stderr: ${err}`));
    });
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token')!,
    child,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** Waits (a liveness bound, not a speed figure) until the dashboard's API answers 200 at `pathname` (`/runs/<id>`). */
export async function waitForApi(dash: DashboardProcess, pathname: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    const r = await fetch(`${dash.origin}/api${pathname}`, { headers: { Authorization: `Bearer ${dash.token}` } });
    if (r.status === 200) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`${pathname} did not answer 200 within 30 s`);
}
