import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpServerProcess, MCP_POST_HEADERS, initializeBody, rawRequest } from './helpers/http-server';
import { tempDir } from './helpers/server-process';

/**
 * OAuth 2.1 resource server (issue 20): `serve --http --oauth-issuer URL --oauth-audience URL` accepts the JWT access
 * tokens of a local authorization server this test starts on loopback (its own key pair, RFC 8414 metadata and JWKS)
 * and refuses expired ones, wrong audience, wrong issuer and bad signatures; a token without a call's scope gets 403
 * with a scope challenge; the RFC 9728 document names the authorization server.
 */
describe('OAuth access tokens', () => {
  let tmp: ReturnType<typeof tempDir>;
  let issuerServer: http.Server;
  let issuer: string;
  let server: HttpServerProcess;
  let key: KeyLike;
  let otherKey: KeyLike;
  let publicKey: KeyLike;
  let audience: string;
  let jwksFetches = 0;

  const token = (
    claims: { sub?: string; scope?: string; iss?: string; aud?: string; exp?: number; nbf?: number; extra?: Record<string, unknown> },
    signWith: KeyLike = key,
  ) => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...(claims.scope !== undefined ? { scope: claims.scope } : {}), ...claims.extra })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(claims.iss ?? issuer)
      .setAudience(claims.aud ?? audience)
      .setSubject(claims.sub ?? 'alice@example.com')
      .setIssuedAt(now)
      .setExpirationTime(claims.exp ?? now + 300);
    if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
    return jwt.sign(signWith);
  };

  beforeAll(async () => {
    tmp = tempDir('wg-oauth-');
    ({ privateKey: key, publicKey } = await keyPair());
    ({ privateKey: otherKey } = await keyPair());
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    issuerServer = http.createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }));
      } else if (req.url === '/jwks') {
        jwksFetches++;
        res.end(JSON.stringify({ keys: [jwk] }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    // The audience is this server's MCP URL; the port is picked up front so the test can name it.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    audience = `http://127.0.0.1:${port}/mcp`;
    fs.mkdirSync(path.join(tmp.dir, 'p'));
    server = await HttpServerProcess.start({
      dataDir: path.join(tmp.dir, 'data'),
      address: `127.0.0.1:${port}`,
      args: ['--oauth-issuer', issuer, '--oauth-audience', audience, '--allow-root', tmp.dir],
    });
  }, 60_000);
  afterAll(async () => {
    server?.kill();
    await new Promise<void>((r) => issuerServer?.close(() => r()));
    tmp.cleanup();
  });

  it('the RFC 9728 document names the authorization server and the scopes', async () => {
    const r = await rawRequest(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ resource: audience, authorization_servers: [issuer], scopes_supported: ['read', 'write', 'run', 'admin'] });
  });

  it('a valid token: the SDK client works, as the identity named by sub with the token scope', async () => {
    const conn = await server.connect({ token: await token({ scope: 'read write openid' }) });
    try {
      const r = (await conn.client.callTool({ name: 'add_nodes', arguments: { projectContext: 'oauth-notes', nodes: [{ thought: 'hi', role: 'actor' }] } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(jwksFetches).toBeGreaterThan(0);
    } finally {
      await conn.close();
    }
  });

  it.each([
    ['expired', () => token({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['not yet valid (nbf)', () => token({ nbf: Math.floor(Date.now() / 1000) + 600 })],
    ['for another audience', () => token({ aud: 'https://other.example.com/mcp' })],
    ['from another issuer', () => token({ iss: 'https://evil.example.com' })],
    ['with a bad signature', () => token({}, otherKey)],
  ])('a token %s: 401 invalid_token', async (_what, make) => {
    const r = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${await make()}` }, body: initializeBody() });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('a token without the scope a call needs: 403 with a scope challenge, nothing runs', async () => {
    const conn = await server.connect({ token: await token({ sub: 'viewer', scope: 'read' }) });
    try {
      const listed = (await conn.client.callTool({ name: 'list_nodes', arguments: { projectContext: 'oauth-notes' } })) as CallToolResult;
      expect(listed.isError).toBeFalsy();
      const sessionId = conn.transport.sessionId!;
      const r = await rawRequest(server.url, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${await token({ sub: 'viewer', scope: 'read' })}`, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add_nodes', arguments: { projectContext: 'oauth-notes', nodes: [{ thought: 'planted', role: 'actor' }] } } }),
      });
      expect(r.status).toBe(403);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer error="insufficient_scope", scope="read write", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
      expect(JSON.parse(r.body).error.message).toContain("add_nodes needs the 'write' scope");
      const after = (await conn.client.callTool({ name: 'list_nodes', arguments: { projectContext: 'oauth-notes' } })) as CallToolResult;
      expect(JSON.stringify(after.structuredContent)).not.toContain('planted');
    } finally {
      await conn.close();
    }
  });

  it('OAuth identities get roots: the workgraph_roots claim, else the config file\'s oauth.subjects, else unmappedRoots', async () => {
    // Before, an OAuth identity was never confined beyond --allow-root: every token reached every project.
    const base = fs.realpathSync(tmp.dir);
    const rootA = path.join(base, 'ra');
    const rootB = path.join(base, 'rb');
    fs.mkdirSync(rootA);
    fs.mkdirSync(rootB);
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const aud = `http://127.0.0.1:${port}/mcp`;
    const config = path.join(base, 'oauth-roots.json');
    fs.writeFileSync(config, JSON.stringify({ oauth: { issuer, audience: aud, subjects: { bob: [rootB] }, unmappedRoots: 'none' } }));
    const confined = await HttpServerProcess.start({ dataDir: path.join(base, 'data-roots'), address: `127.0.0.1:${port}`, args: ['--config', config, '--allow-root', base] });
    const conns: Array<Awaited<ReturnType<HttpServerProcess['connect']>>> = [];
    const as = async (sub: string, extra?: Record<string, unknown>) => {
      const c = await confined.connect({ token: await token({ sub, scope: 'read write', aud, extra }) });
      conns.push(c);
      return async (name: string, args: Record<string, unknown>) => {
        const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent?: Record<string, any> };
        return { code: (r._meta as Record<string, unknown> | undefined)?.['workgraph/errorCode'], value: r.structuredContent ?? {} };
      };
    };
    const nodes = [{ id: 't', title: 'T', depends_on: [] }];
    try {
      // alice's token names her roots in the claim; bob's has none, and the config file maps his subject.
      const alice = await as('alice', { workgraph_roots: [rootA] });
      const bob = await as('bob');
      expect((await alice('init_project_graph', { projectName: 'Alpha', projectRoot: rootA, nodes })).code).toBeUndefined();
      expect((await alice('init_project_graph', { projectName: 'Out', projectRoot: rootB, nodes })).code).toBe('path_not_allowed');
      expect((await bob('init_project_graph', { projectName: 'Beta', projectRoot: rootB, nodes })).code).toBeUndefined();
      expect((await bob('get_project_graph', { project: 'Alpha' })).code).toBe('not_found');
      expect((await alice('get_project_graph', { project: 'Beta' })).code).toBe('not_found');
      // The claim may be one string separated by ':', as a token file's roots=.
      const both = await as('ci', { workgraph_roots: `${rootA}:${rootB}` });
      expect((await both('get_project_graph', { project: 'Beta' })).value.project_root).toBe(rootB);
      expect((await both('get_project_graph', { project: 'Alpha' })).value.project_root).toBe(rootA);
      // Neither claim nor mapping, with unmappedRoots "none": no folder at all.
      const carol = await as('carol');
      expect((await carol('get_project_graph', { project: 'Alpha' })).code).toBe('not_found');
      expect((await carol('init_project_graph', { projectName: 'Gamma', projectRoot: rootA, nodes })).code).toBe('path_not_allowed');
      // A claim that is not absolute folders makes the token invalid (a malformed claim never widens a reach).
      const bad = await rawRequest(confined.url, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${await token({ sub: 'mallory', aud, extra: { workgraph_roots: ['relative/dir'] } })}` },
        body: initializeBody(),
      });
      expect(bad.status).toBe(401);
    } finally {
      await Promise.all(conns.map((c) => c.close()));
      confined.kill();
    }
  }, 60_000);
});

function keyPair() {
  return generateKeyPair('RS256');
}
