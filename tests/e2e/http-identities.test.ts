import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpServerProcess, type HttpConn } from './helpers/http-server';
import { CLI, serverEnv, tempDir } from './helpers/server-process';

/**
 * Identities over HTTP (issue 20, docs/http.md "The security model"): a token-file line names an identity with its
 * roots and scopes; each call runs as its token's identity; a scope the call needs and the identity lacks is refused
 * `forbidden`, naming the scope. The built server, driven by the SDK's client.
 */
const FULL = 'full-token-0123456789abcdef';
const READER = 'reader-token-0123456789abc';
const WRITER = 'writer-token-0123456789abc';

function text(r: CallToolResult): string {
  return (r.content as Array<{ type: string; text: string }>)[0].text;
}

describe('identities and scopes over HTTP', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  let root: string;
  const conns: HttpConn[] = [];
  const connect = async (token: string) => {
    const c = await server.connect({ token });
    conns.push(c);
    return c.client;
  };

  beforeAll(async () => {
    tmp = tempDir('wg-identities-');
    fs.mkdirSync(path.join(tmp.dir, 'projects'));
    root = fs.realpathSync(path.join(tmp.dir, 'projects'));
    const tokens = path.join(tmp.dir, 'tokens');
    fs.writeFileSync(
      tokens,
      [
        '# one token per line; a line may name an identity, its roots and scopes',
        FULL,
        `${READER} name=reader scopes=read`,
        `${WRITER} name=writer roots=${root} scopes=read,write`,
        '',
      ].join('\n'),
    );
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--auth-token-file', tokens, '--allow-root', root] });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close()));
    server?.kill();
    tmp.cleanup();
  });

  it('a plain token has every scope: it writes and runs validations', async () => {
    const client = await connect(FULL);
    const init = (await client.callTool({
      name: 'init_project_graph',
      arguments: { projectName: 'Full', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [], validation_command: 'true' }] },
    })) as CallToolResult;
    expect(init.isError).toBeFalsy();
    expect((await client.callTool({ name: 'start_task', arguments: { project: 'Full', nodeId: 'a' } })).isError).toBeFalsy();
    const run = (await client.callTool({ name: 'validate_task_loop', arguments: { project: 'Full', nodeId: 'a' } })) as CallToolResult;
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toMatchObject({ validation_passed: true });
  });

  it('a read token reads, and each write is refused forbidden, naming the scope', async () => {
    const client = await connect(READER);
    const read = (await client.callTool({ name: 'get_project_graph', arguments: { project: 'Full' } })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    for (const [name, args] of [
      ['add_nodes', { projectContext: root, nodes: [{ thought: 'x', role: 'actor' }] }],
      ['init_project_graph', { projectName: 'Nope', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] }],
      ['reset_task_node', { project: 'Full', nodeId: 'a' }],
      ['workflow_start', { workflowId: 'fix-failing-test', goal: 'x' }],
    ] as const) {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect(r._meta).toMatchObject({ 'workgraph/errorCode': 'forbidden' });
      expect(text(r)).toBe(`forbidden: ${name} needs the 'write' scope; identity 'reader' has 'read'`);
    }
    // Nothing was written.
    expect(fs.existsSync(path.join(tmp.dir, 'data', 'projects', 'nope'))).toBe(false);
  });

  it('a token without run writes but may not run a validation', async () => {
    const client = await connect(WRITER);
    const init = (await client.callTool({
      name: 'init_project_graph',
      arguments: { projectName: 'Writer', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [], validation_command: `touch ${path.join(root, 'ran')}` }] },
    })) as CallToolResult;
    expect(init.isError).toBeFalsy();
    expect((await client.callTool({ name: 'start_task', arguments: { project: 'Writer', nodeId: 'a' } })).isError).toBeFalsy();
    const run = (await client.callTool({ name: 'validate_task_loop', arguments: { project: 'Writer', nodeId: 'a' } })) as CallToolResult;
    expect(run.isError).toBe(true);
    expect(text(run)).toBe("forbidden: validate_task_loop needs the 'run' scope; identity 'writer' has 'read', 'write'");
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });
});

describe('token configuration that cannot be used stops the start (one line, exit 2)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-token-config-');
  });
  afterAll(() => tmp.cleanup());

  const serve = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [CLI, 'serve', '--http', '127.0.0.1:0', ...args], {
      env: serverEnv({ dataDir: path.join(tmp.dir, 'data'), env }),
      encoding: 'utf8',
      timeout: 30_000,
      input: '',
    });

  it.each([
    ['WORKGRAPH_AUTH_TOKENS=" , " (it served without authentication)', [], { WORKGRAPH_AUTH_TOKENS: ' , ' }, 'workgraph serve: WORKGRAPH_AUTH_TOKENS is set but holds no token'],
    ['a 1-character token', [], { WORKGRAPH_AUTH_TOKENS: 'x' }, 'workgraph serve: WORKGRAPH_AUTH_TOKENS entry 1: a token must be at least 16 characters (this one has 1)'],
    ['a token with a space', [], { WORKGRAPH_AUTH_TOKENS: 'abcdefgh ijklmnopq' }, 'workgraph serve: WORKGRAPH_AUTH_TOKENS entry 1: a token holds no whitespace'],
  ])('%s', (_what, args, env, message) => {
    const r = serve(args, env);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
  });

  it('a token file whose only token is short, or that holds only comments', () => {
    const short = path.join(tmp.dir, 'short');
    fs.writeFileSync(short, '# one token per line\nabc\n');
    const comments = path.join(tmp.dir, 'comments');
    fs.writeFileSync(comments, '# one token per line\n\n');
    const a = serve(['--auth-token-file', short]);
    expect(a.status).toBe(2);
    expect(a.stderr.trim()).toBe(`workgraph serve: --auth-token-file: '${short}' line 2: a token must be at least 16 characters (this one has 3); make one with \`openssl rand -hex 32\``);
    const b = serve(['--auth-token-file', comments]);
    expect(b.status).toBe(2);
    expect(b.stderr.trim()).toBe(`workgraph serve: --auth-token-file: '${comments}' holds no token (one per line; blank lines and # comments are ignored)`);
  });
});
