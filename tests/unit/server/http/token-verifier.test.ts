import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StaticTokenVerifier, parseTokenList, parseTokenLines, readTokenFile } from '../../../../src/server/http/token-verifier';

describe('StaticTokenVerifier', () => {
  const verifier = new StaticTokenVerifier(['alpha-token-1', 'beta-token-22']);

  it('accepts each configured token with a stable client id that does not contain the token', async () => {
    const a = await verifier.verify('alpha-token-1');
    const b = await verifier.verify('beta-token-22');
    expect(a?.clientId).toMatch(/^token-[0-9a-f]{12}$/);
    expect(b?.clientId).toMatch(/^token-[0-9a-f]{12}$/);
    expect(a?.clientId).not.toBe(b?.clientId);
    expect((await verifier.verify('alpha-token-1'))?.clientId).toBe(a?.clientId);
    expect(a?.clientId).not.toContain('alpha');
  });

  it.each(['', 'alpha-token-', 'alpha-token-12', 'ALPHA-TOKEN-1', ' alpha-token-1', 'beta-token-22\n'])('refuses %j', async (t) => {
    expect(await verifier.verify(t)).toBeUndefined();
  });

  it('needs at least one token', () => {
    expect(() => new StaticTokenVerifier([])).toThrow(/at least one token/);
  });
});

describe('token sources', () => {
  it('a token file: one per line, blank lines and # comments ignored, spaces trimmed', () => {
    expect(parseTokenLines('# team tokens\r\n\n  tok-a  \n#tok-disabled\ntok-b\n')).toEqual(['tok-a', 'tok-b']);
  });

  it('WORKGRAPH_AUTH_TOKENS: comma-separated', () => {
    expect(parseTokenList(' a1 , ,b2,')).toEqual(['a1', 'b2']);
  });

  it('a missing or empty token file is a one-line error naming the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-tokens-'));
    try {
      const empty = path.join(dir, 'empty.txt');
      fs.writeFileSync(empty, '# nothing yet\n\n');
      expect(() => readTokenFile(empty)).toThrow(`--auth-token-file: '${empty}' holds no token`);
      expect(() => readTokenFile(path.join(dir, 'missing.txt'))).toThrow(/^--auth-token-file: cannot read '.*missing\.txt': ENOENT$/);
      const good = path.join(dir, 'tokens.txt');
      fs.writeFileSync(good, 'secret-1\n');
      expect(readTokenFile(good)).toEqual(['secret-1']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
