import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDuration, resolveHttpConfig } from '../../../src/cli/resolve-http-config';
import { defaultName } from '../../../src/kernel/auth/token-file';
import { SCOPES } from '../../../src/kernel/identity';

/** A plain token line: every scope, the operator's roots. */
const plain = (token: string) => ({ token, identity: { name: defaultName(token), scopes: [...SCOPES] } });

describe('resolveHttpConfig', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-httpcfg-')));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it('is off without --http or WORKGRAPH_HTTP', () => {
    expect(resolveHttpConfig({}, {}, cwd)).toBeUndefined();
  });

  it('refuses HTTP-only flags without --http', () => {
    expect(() => resolveHttpConfig({ maxSessions: '5' }, {}, cwd)).toThrow('--max-sessions applies to the HTTP transport: give --http [HOST:]PORT too');
  });

  it('defaults: loopback, no stdio, no tokens, 30 minutes idle, 100 sessions', () => {
    expect(resolveHttpConfig({ http: '8080' }, {}, cwd)).toEqual({
      listen: { host: '127.0.0.1', port: 8080 },
      stdio: false,
      tokens: [],
      allowedHosts: [],
      allowedOrigins: [],
      sessionIdleTimeoutMs: 30 * 60_000,
      maxSessions: 100,
    });
  });

  it('reads every setting from the environment, flags beating it', () => {
    fs.writeFileSync(path.join(cwd, 'tokens'), '# ci\nfile-token-0123456789\n');
    const env = {
      WORKGRAPH_HTTP: '0.0.0.0:9000',
      WORKGRAPH_AUTH_TOKENS: 'env-a-0123456789ab, env-b-0123456789ab',
      WORKGRAPH_ALLOWED_HOSTS: 'mcp.example.com, x.example.com:8443',
      WORKGRAPH_ALLOWED_ORIGINS: 'https://app.example.com',
      WORKGRAPH_PUBLIC_URL: 'https://mcp.example.com',
      WORKGRAPH_SESSION_IDLE_TIMEOUT: '5m',
      WORKGRAPH_MAX_SESSIONS: '7',
    };
    expect(resolveHttpConfig({}, env, cwd)).toEqual({
      listen: { host: '0.0.0.0', port: 9000 },
      stdio: false,
      tokens: [plain('env-a-0123456789ab'), plain('env-b-0123456789ab')],
      allowedHosts: ['mcp.example.com', 'x.example.com:8443'],
      allowedOrigins: ['https://app.example.com'],
      publicUrl: 'https://mcp.example.com',
      sessionIdleTimeoutMs: 300_000,
      maxSessions: 7,
    });
    const flagged = resolveHttpConfig(
      { http: '127.0.0.1:1', stdio: true, authTokenFile: 'tokens', allowedHosts: ['h'], maxSessions: '3', sessionIdleTimeout: '90' },
      env,
      cwd,
    );
    expect(flagged).toMatchObject({ listen: { host: '127.0.0.1', port: 1 }, stdio: true, tokens: [plain('file-token-0123456789')], allowedHosts: ['h'], maxSessions: 3, sessionIdleTimeoutMs: 90_000 });
  });

  it('refuses a non-loopback bind without tokens, saying why', () => {
    expect(() => resolveHttpConfig({ http: '0.0.0.0:8080' }, {}, cwd)).toThrow(
      '--http: binding 0.0.0.0 (not a loopback address) requires authentication: give --auth-token-file FILE, WORKGRAPH_AUTH_TOKENS or --oauth-issuer with --oauth-audience, or bind 127.0.0.1',
    );
  });

  it('names the malformed setting', () => {
    expect(() => resolveHttpConfig({}, { WORKGRAPH_HTTP: 'nope' }, cwd)).toThrow(/^WORKGRAPH_HTTP: expected \[HOST:\]PORT/);
    expect(() => resolveHttpConfig({ http: '1', maxSessions: '0' }, {}, cwd)).toThrow("--max-sessions: expected a positive whole number, got '0'");
    expect(() => resolveHttpConfig({ http: '1' }, { WORKGRAPH_MAX_SESSIONS: 'lots' }, cwd)).toThrow(/^WORKGRAPH_MAX_SESSIONS: expected a positive whole number/);
    expect(() => resolveHttpConfig({ http: '1', sessionIdleTimeout: 'soon' }, {}, cwd)).toThrow(/^--session-idle-timeout: expected a duration/);
    expect(() => resolveHttpConfig({ http: '1', publicUrl: 'mcp.example.com' }, {}, cwd)).toThrow(/^--public-url: expected an http\(s\) URL/);
    expect(() => resolveHttpConfig({ http: '1', authTokenFile: 'missing' }, {}, cwd)).toThrow(/^--auth-token-file: cannot read/);
  });
});

it('parseDuration', () => {
  expect(parseDuration('250ms', 'x')).toBe(250);
  expect(parseDuration('2h', 'x')).toBe(7_200_000);
  expect(parseDuration('1.5m', 'x')).toBe(90_000);
  expect(() => parseDuration('0', 'x')).toThrow(/^x: expected a duration/);
  expect(() => parseDuration('-5s', 'x')).toThrow(/^x: expected a duration/);
});

describe('resolveHttpConfig with a config file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-httpfile-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads every HTTP setting from the file (token file relative to it); env and flags beat it', () => {
    fs.mkdirSync(path.join(dir, 'etc'));
    fs.writeFileSync(path.join(dir, 'etc', 'tokens'), 'from-file-0123456789\n');
    const cfg = path.join(dir, 'etc', 'workgraph.yaml');
    fs.writeFileSync(
      cfg,
      'http: "0.0.0.0:7000"\nstdio: true\nauthTokenFile: tokens\nallowedHosts: [mcp.example.com]\nallowedOrigins: https://app.example.com\npublicUrl: https://mcp.example.com\nsessionIdleTimeout: 10m\nmaxSessions: 12\n',
    );
    expect(resolveHttpConfig({ config: cfg }, {}, dir)).toEqual({
      listen: { host: '0.0.0.0', port: 7000 },
      stdio: true,
      tokens: [plain('from-file-0123456789')],
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://app.example.com'],
      publicUrl: 'https://mcp.example.com',
      sessionIdleTimeoutMs: 600_000,
      maxSessions: 12,
    });
    expect(resolveHttpConfig({ config: cfg, maxSessions: '3' }, { WORKGRAPH_HTTP: '127.0.0.1:1', WORKGRAPH_AUTH_TOKENS: 'env-t-0123456789ab' }, dir)).toMatchObject({
      listen: { host: '127.0.0.1', port: 1 },
      tokens: [plain('env-t-0123456789ab')],
      maxSessions: 3,
    });
  });

  it('a bad value in the file names the setting', () => {
    const cfg = path.join(dir, 'w.json');
    fs.writeFileSync(cfg, JSON.stringify({ http: '8080', maxSessions: 0 }));
    expect(() => resolveHttpConfig({}, { WORKGRAPH_CONFIG: cfg }, dir)).toThrow("maxSessions (config file): expected a positive whole number, got '0'");
  });
});

describe('OAuth settings', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-oauthcfg-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('flags, environment or a config-file section; both or neither; OAuth alone allows a non-loopback bind', () => {
    const oauth = { issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp', rootsClaim: 'workgraph_roots', subjects: {}, unmappedRoots: 'operator' };
    expect(resolveHttpConfig({ http: '0.0.0.0:1', oauthIssuer: oauth.issuer, oauthAudience: oauth.audience }, {}, dir)?.oauth).toEqual(oauth);
    expect(resolveHttpConfig({ http: '1' }, { WORKGRAPH_OAUTH_ISSUER: oauth.issuer, WORKGRAPH_OAUTH_AUDIENCE: oauth.audience }, dir)?.oauth).toEqual(oauth);
    const cfg = path.join(dir, 'w.yaml');
    fs.writeFileSync(cfg, `http: "1"\noauth:\n  issuer: ${oauth.issuer}\n  audience: ${oauth.audience}\n  jwksUrl: https://auth.example.com/keys\n`);
    expect(resolveHttpConfig({ config: cfg }, {}, dir)?.oauth).toEqual({ ...oauth, jwksUrl: 'https://auth.example.com/keys' });
    expect(() => resolveHttpConfig({ http: '1', oauthIssuer: oauth.issuer }, {}, dir)).toThrow(/^--oauth-issuer: give --oauth-audience URL too/);
    expect(() => resolveHttpConfig({ http: '1', oauthIssuer: 'auth.example.com', oauthAudience: oauth.audience }, {}, dir)).toThrow("--oauth-issuer: expected an http(s) URL, got 'auth.example.com'");
    fs.writeFileSync(cfg, 'http: "1"\noauth:\n  issuer: x\n  scopes: all\n');
    expect(() => resolveHttpConfig({ config: cfg }, {}, dir)).toThrow(/unknown setting "oauth.scopes"/);
  });

  it("OAuth identities' roots: the claim's name, roots per subject, what an unmapped token reaches — each checked", () => {
    const cfg = path.join(dir, 'w.yaml');
    const base = 'http: "1"\noauth:\n  issuer: https://auth.example.com\n  audience: https://mcp.example.com/mcp\n';
    fs.writeFileSync(cfg, `${base}  rootsClaim: wg/roots\n  subjects:\n    alice: /srv/a:/srv/b\n    bob: [/srv/b]\n  unmappedRoots: none\n`);
    expect(resolveHttpConfig({ config: cfg }, {}, dir)?.oauth).toMatchObject({ rootsClaim: 'wg/roots', subjects: { alice: ['/srv/a', '/srv/b'], bob: ['/srv/b'] }, unmappedRoots: 'none' });
    expect(resolveHttpConfig({ config: cfg, oauthRootsClaim: 'roots' }, { WORKGRAPH_OAUTH_UNMAPPED_ROOTS: 'operator' }, dir)?.oauth).toMatchObject({ rootsClaim: 'roots', unmappedRoots: 'operator' });
    expect(() => resolveHttpConfig({ config: cfg }, { WORKGRAPH_OAUTH_UNMAPPED_ROOTS: 'all' }, dir)).toThrow("oauth.unmappedRoots (WORKGRAPH_OAUTH_UNMAPPED_ROOTS): expected 'operator' or 'none', got 'all'");
    expect(() => resolveHttpConfig({ config: cfg, oauthRootsClaim: 'a b' }, {}, dir)).toThrow(/^--oauth-roots-claim: expected a claim name/);
    fs.writeFileSync(cfg, `${base}  subjects:\n    alice: relative/dir\n`);
    expect(() => resolveHttpConfig({ config: cfg }, {}, dir)).toThrow(/"oauth.subjects.alice" must be absolute folders/);
  });
});
