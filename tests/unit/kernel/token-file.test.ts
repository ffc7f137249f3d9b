import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultName, parseTokenFile, parseTokenList, TokenConfigError } from '../../../src/kernel/auth/token-file';
import { StaticTokenVerifier } from '../../../src/kernel/auth/token-verifier';
import { resolveAuthTokens } from '../../../src/cli/auth-tokens';
import { ConfigFileError } from '../../../src/cli/config-file';

const A = 'alpha-token-0123456789';
const B = 'beta-token-0123456789ab';

describe('the token file (docs/http.md "Token file")', () => {
  it('plain lines stay valid: every scope, the operator roots; # comments and blank lines are ignored', () => {
    const entries = parseTokenFile(`# one token per line\r\n\n  ${A}  \n#${B}\n`, 'tokens');
    expect(entries).toEqual([{ token: A, identity: { name: defaultName(A), scopes: ['read', 'write', 'run', 'admin'] } }]);
    expect(entries[0].identity.name).toMatch(/^token-[0-9a-f]{12}$/);
    expect(entries[0].identity.name).not.toContain('alpha');
  });

  it('a line names an identity, its roots and scopes', () => {
    const [alice, bob, carol] = parseTokenFile(
      [`${A} name=alice roots=/srv/a:/srv/b/ scopes=read,write,run`, `${B} name=bob scopes=read`, `${A}-2 name=carol roots=/srv/c`].join('\n'),
      'tokens',
    );
    expect(alice).toEqual({ token: A, identity: { name: 'alice', roots: ['/srv/a', '/srv/b'], scopes: ['read', 'write', 'run'] } });
    expect(bob.identity).toEqual({ name: 'bob', scopes: ['read'] });
    // Named without scopes: everything but admin.
    expect(carol.identity).toEqual({ name: 'carol', roots: ['/srv/c'], scopes: ['read', 'write', 'run'] });
  });

  it('two tokens of one identity are fine (rotation) when they agree on its reach', () => {
    expect(parseTokenFile(`${A} name=ci scopes=read\n${B} name=ci scopes=read\n`, 'f')).toHaveLength(2);
    expect(() => parseTokenFile(`${A} name=ci scopes=read\n${B} name=ci scopes=read,write\n`, 'f')).toThrow(
      "f line 2: identity 'ci' has other roots or scopes at f line 1; one name, one reach",
    );
  });

  it.each([
    ['short-token', 'tokens line 2: a token must be at least 16 characters (this one has 11)'],
    [`${A} tail-of-a-token`, 'tokens line 2: field 2 is not name=…, roots=… or scopes=…'],
    [`${A} colour=blue`, 'tokens line 2: field 2 is not name=…'],
    [`${A} name=a name=b`, 'tokens line 2: name= is given twice'],
    [`${A} name=al/ice`, "tokens line 2: name= expects letters, digits, '.', '_', '-' or '@' (at most 64), got 'al/ice'"],
    [`${A} scopes=read,sudo`, "tokens line 2: scopes=: unknown scope 'sudo' (expected read, write, run, admin)"],
    [`${A} scopes=`, 'tokens line 2: scopes= expects one or more of read, write, run, admin'],
    [`${A} roots=srv/a`, "tokens line 2: roots=: 'srv/a' is not an absolute path"],
    [`${A} roots=`, 'tokens line 2: roots= expects absolute folders'],
    [`${B}\n${B}`, 'tokens line 3: the same token as line 2'],
  ])('refuses %j with one line naming the line, never the token', (line, message) => {
    let error: unknown;
    try {
      parseTokenFile(`# header\n${line}\n`, 'tokens');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TokenConfigError);
    const text = (error as Error).message;
    expect(text.startsWith(message.replace(/line 3: the same token as line 2/, 'line 3: the same token as tokens line 2'))).toBe(true);
    expect(text).not.toMatch(/\n/);
    expect(text).not.toContain(A);
    expect(text).not.toContain(B);
    expect(text).not.toContain('tail-of-a-token');
  });

  it('a file of comments only holds no token', () => {
    expect(() => parseTokenFile('# one token per line\n\n', "--auth-token-file: 'tokens'")).toThrow(
      "--auth-token-file: 'tokens' holds no token (one per line; blank lines and # comments are ignored)",
    );
  });
});

describe('WORKGRAPH_AUTH_TOKENS', () => {
  it('comma-separated plain tokens', () => {
    expect(parseTokenList(` ${A} , ,${B},`).map((e) => e.token)).toEqual([A, B]);
  });

  it.each([
    [' , ', 'WORKGRAPH_AUTH_TOKENS is set but holds no token'],
    ['short', 'WORKGRAPH_AUTH_TOKENS entry 1: a token must be at least 16 characters (this one has 5)'],
    [`${A},with a-space-0123456789`, 'WORKGRAPH_AUTH_TOKENS entry 2: a token holds no whitespace'],
  ])('refuses %j', (value, message) => {
    expect(() => parseTokenList(value)).toThrow(message);
  });
});

describe('resolveAuthTokens (every command reads tokens through it)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-tokens-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('flag, then WORKGRAPH_AUTH_TOKEN_FILE, then WORKGRAPH_AUTH_TOKENS, then the config file; none: undefined', () => {
    fs.writeFileSync(path.join(dir, 'a'), `${A} name=from-flag\n`);
    fs.writeFileSync(path.join(dir, 'b'), `${B} name=from-env-file\n`);
    const env = { WORKGRAPH_AUTH_TOKEN_FILE: 'b', WORKGRAPH_AUTH_TOKENS: `${A}x` };
    expect(resolveAuthTokens({ flagFile: 'a', env, cwd: dir })?.[0].identity.name).toBe('from-flag');
    expect(resolveAuthTokens({ env, cwd: dir })?.[0].identity.name).toBe('from-env-file');
    expect(resolveAuthTokens({ env: { WORKGRAPH_AUTH_TOKENS: `${A}x` }, cwd: dir })?.[0].token).toBe(`${A}x`);
    expect(resolveAuthTokens({ env: {}, configFile: path.join(dir, 'a'), cwd: dir })?.[0].identity.name).toBe('from-flag');
    expect(resolveAuthTokens({ env: { WORKGRAPH_AUTH_TOKENS: '' }, cwd: dir })).toBeUndefined();
  });

  it('what cannot be used is a usage error (exit 2), one line naming the file', () => {
    fs.writeFileSync(path.join(dir, 'short'), '# one token per line\ntoo-short\n');
    expect(() => resolveAuthTokens({ flagFile: 'short', env: {}, cwd: dir })).toThrow(ConfigFileError);
    expect(() => resolveAuthTokens({ flagFile: 'short', env: {}, cwd: dir })).toThrow(
      `--auth-token-file: '${path.join(dir, 'short')}' line 2: a token must be at least 16 characters (this one has 9)`,
    );
    expect(() => resolveAuthTokens({ flagFile: 'missing', env: {}, cwd: dir })).toThrow(/^--auth-token-file: cannot read '.*missing': ENOENT$/);
    expect(() => resolveAuthTokens({ env: { WORKGRAPH_AUTH_TOKENS: ' , ' }, cwd: dir })).toThrow(ConfigFileError);
  });
});

describe('StaticTokenVerifier', () => {
  const verifier = new StaticTokenVerifier(parseTokenFile(`${A} name=alice scopes=read\n${B}\n`, 'f'));

  it('maps each token to its identity; the client id is the identity name, never the token', async () => {
    const a = await verifier.verify(A);
    expect(a).toMatchObject({ clientId: 'alice', scopes: ['read'], identity: { name: 'alice', scopes: ['read'] } });
    const b = await verifier.verify(B);
    expect(b?.clientId).toBe(defaultName(B));
    expect(b?.clientId).not.toContain('beta');
  });

  it.each(['', A.slice(0, -1), `${A}0`, A.toUpperCase(), ` ${A}`, `${B}\n`])('refuses %j', async (t) => {
    expect(await verifier.verify(t)).toBeUndefined();
  });

  it('needs at least one token', () => {
    expect(() => new StaticTokenVerifier([])).toThrow(/at least one token/);
  });
});
