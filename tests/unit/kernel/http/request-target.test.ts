import { checkRequestTarget, loggedTarget, MAX_TARGET_LENGTH } from '../../../../src/kernel/http/request-target';

describe('checkRequestTarget (what every HTTP handler may assume of a path)', () => {
  it.each([
    ['/', '/', ''],
    ['/mcp', '/mcp', ''],
    ['/dashboard/', '/dashboard/', ''],
    ['/dashboard/api/overview?token=abc&x=%zz', '/dashboard/api/overview', '?token=abc&x=%zz'],
    ['/dashboard/api/knowledge/%2Fhome%2Fme%2Fproj/nodes', '/dashboard/api/knowledge/%2Fhome%2Fme%2Fproj/nodes', ''],
    ['/assets/index-Ab_1.js', '/assets/index-Ab_1.js', ''],
    ["/a/b:c@d!$&'()*+,;=~", "/a/b:c@d!$&'()*+,;=~", ''],
    ['/a/%E2%9C%93', '/a/%E2%9C%93', ''],
    ['/a/...', '/a/...', ''],
  ])('accepts %s', (raw, path, search) => {
    const r = checkRequestTarget(raw);
    expect(r).toMatchObject({ ok: true, target: { path, search } });
    if (r.ok) expect(r.target.url.pathname).toBe(path);
  });

  it('keeps the query for handlers (searchParams parsed)', () => {
    const r = checkRequestTarget('/api/x?token=t0k&limit=2');
    expect(r.ok && r.target.url.searchParams.get('token')).toBe('t0k');
  });

  it.each([
    ['/%', 'a % not followed by two hex digits'],
    ['/%zz', 'a % not followed by two hex digits'],
    ['/a%2', 'a % not followed by two hex digits'],
    ['/%ff', 'not UTF-8'],
    ['/%C0%AF', 'not UTF-8'],
    ['//', 'empty segment'],
    ['//evil.example/x', 'empty segment'],
    ['/dashboard//api', 'empty segment'],
    ['/dashboard/..', '. or .. segment'],
    ['/dashboard/../x', '. or .. segment'],
    ['/dashboard/%2e%2e/x', '. or .. segment'],
    ['/dashboard/%2E./x', '. or .. segment'],
    ['/mcp/../mcp', '. or .. segment'],
    ['/./mcp', '. or .. segment'],
    ['/%00', 'control character'],
    ['/a%0d%0aSet-Cookie:x', 'control character'],
    ['/a\\..\\b', 'outside RFC 3986'],
    ['/a b', 'outside RFC 3986'],
    ['/a#frag', 'outside RFC 3986'],
    ['/a<script>', 'outside RFC 3986'],
    ['/caf\u00e9', 'outside RFC 3986'],
    ['/a?b c', 'query'],
    ['http://evil.example/mcp', 'origin-form'],
    ['*', 'origin-form'],
    ['', 'origin-form'],
    ['mcp', 'origin-form'],
  ])('refuses %j with 400 (%s)', (raw, why) => {
    const r = checkRequestTarget(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.status).toBe(400);
      expect(r.message).toContain(why);
    }
  });

  it('answers an overlong target 414', () => {
    expect(checkRequestTarget(`/${'a'.repeat(MAX_TARGET_LENGTH)}`)).toMatchObject({ ok: false, status: 414 });
    expect(checkRequestTarget(`/${'a'.repeat(MAX_TARGET_LENGTH - 1)}`).ok).toBe(true);
  });
});

describe('loggedTarget (a request target as it may appear in a log line)', () => {
  it('never shows the query', () => {
    expect(loggedTarget('/dashboard/api/meta?token=s3cret')).toBe('/dashboard/api/meta?<redacted>');
    expect(loggedTarget('http://h/x?token=s3cret')).not.toContain('s3cret');
    expect(loggedTarget('/plain')).toBe('/plain');
  });

  it('bounds a long path', () => {
    expect(loggedTarget(`/${'a'.repeat(5000)}`).length).toBeLessThan(210);
  });
});
