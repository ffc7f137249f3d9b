import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HmacSessionTokens, loadOrCreateKey } from '../../../../src/modules/workflow/infrastructure/sessions/hmac-session-tokens';

describe('session tokens (HMAC)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-tok-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('signs short opaque tokens that verify to their claims, for every kind', async () => {
    const t = new HmacSessionTokens(path.join(dir, 'sessions', 'token.key'));
    const sessionId = t.newSessionId();
    expect(sessionId).toMatch(/^[0-9a-f]{16}$/);
    for (const kind of ['continue', 'retry', 'checkpoint', 'resume'] as const) {
      const token = await t.sign({ kind, sessionId, node: 4_000_000_000 });
      expect(token.length).toBeLessThan(40);
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(token).not.toContain(sessionId);
      await expect(t.verify(token, 'continueToken')).resolves.toEqual({ kind, sessionId, node: 4_000_000_000 });
    }
  });

  it('refuses altered, truncated, extended, non-base64 and foreign tokens with invalid_token naming the field', async () => {
    const t = new HmacSessionTokens(path.join(dir, 'a.key'));
    const token = await t.sign({ kind: 'continue', sessionId: t.newSessionId(), node: 1 });
    const bytes = Buffer.from(token, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const altered = Buffer.from(bytes);
      altered[i] ^= 0x01;
      await expect(t.verify(altered.toString('base64url'), 'continueToken')).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringContaining('continueToken') });
    }
    for (const bad of [token.slice(0, -1), token.slice(0, 10), `${token}AA`, 'not a token!', '', 'x'.repeat(31)]) {
      await expect(t.verify(bad, 'continueToken')).rejects.toMatchObject({ code: 'invalid_token' });
    }
    const foreign = new HmacSessionTokens(path.join(dir, 'b.key'));
    await expect(foreign.verify(token, 'continueToken')).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringContaining('another data dir') });
  });

  it('creates the key once with mode 0600; processes that race agree on one key', async () => {
    const file = path.join(dir, 'k', 'token.key');
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateKey(file)));
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
    expect(keys[0].length).toBe(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['token.key']);
  });
});
