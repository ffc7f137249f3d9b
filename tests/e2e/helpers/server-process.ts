import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The built CLI; `npm test` builds before jest runs. */
export const CLI = path.resolve(__dirname, '../../../dist/cli/main.js');

export function assertBuilt(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
}

/** A temp folder removed by the returned cleanup. */
export function tempDir(prefix = 'wg-e2e-'): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface ServerEnvOptions {
  dataDir: string;
  args?: string[];
  env?: Record<string, string>;
  /** The server's working directory; default this process's. */
  cwd?: string;
  /** A command the server runs under (e.g. `['prlimit', '--fsize=65536']`): it gets node, the CLI and its args. */
  wrap?: string[];
}

export function serverEnv(opts: ServerEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  return { ...env, WORKGRAPH_DATA_DIR: opts.dataDir, WORKGRAPH_LOG_LEVEL: 'warn', ...opts.env };
}

/** The built server driven by the SDK's real client over stdio. */
export async function connectClient(opts: ServerEnvOptions & { capabilities?: Record<string, unknown> }): Promise<{
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  close: () => Promise<void>;
}> {
  assertBuilt();
  const argv = [...(opts.wrap ?? []), process.execPath, CLI, 'serve', ...(opts.args ?? [])];
  const transport = new StdioClientTransport({
    command: argv[0]!,
    args: argv.slice(1),
    env: serverEnv(opts),
    stderr: 'pipe',
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'workgraph-e2e', version: '1.0.0' }, { capabilities: opts.capabilities ?? {} });
  await client.connect(transport);
  return { client, transport, stderr: () => err, close: () => client.close() };
}

/**
 * The built server on raw pipes, for protocol tests the SDK client would not send: garbage, oversized lines, plain
 * JSON-RPC methods, closing stdin.
 */
export class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  private partial = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(opts: ServerEnvOptions) {
    assertBuilt();
    this.child = spawn(process.execPath, [CLI, 'serve', ...(opts.args ?? [])], { env: serverEnv(opts), cwd: opts.cwd });
    this.child.stdout.on('data', (d: Buffer) => {
      this.partial += d.toString('utf8');
      let nl: number;
      while ((nl = this.partial.indexOf('\n')) !== -1) {
        this.lines.push(this.partial.slice(0, nl));
        this.partial = this.partial.slice(nl + 1);
      }
      this.waiters.splice(0).forEach((w) => w());
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  send(value: unknown): void {
    this.writeLine(typeof value === 'string' ? value : JSON.stringify(value));
  }

  writeLine(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  /** Every stdout line parsed (each must be JSON). */
  messages(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Waits for the response with this id (a generous liveness bound, not a speed figure). */
  async response(id: string | number | null, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages().find((m) => m.id === id && ('result' in m || 'error' in m));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no response with id ${JSON.stringify(id)}; stdout: ${this.lines.join('\n').slice(0, 2000)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Waits until `count` responses with id null have arrived. */
  async nullIdErrors(count: number, timeoutMs = 20_000): Promise<Array<Record<string, unknown>>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages().filter((m) => m.id === null && 'error' in m);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`expected ${count} id-null errors, got ${found.length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async initialize(): Promise<void> {
    this.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await this.response('init');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
