import { RequestGuard } from '../../../../src/server/http/request-guard';

describe('RequestGuard (DNS-rebinding protection)', () => {
  const local = new RequestGuard({ boundHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [] });

  it.each(['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST', '[::1]:8080', '127.0.0.1'])('allows Host %s by default', (host) => {
    expect(local.check({ host })).toBeUndefined();
  });

  it.each(['evil.example:8080', 'evil.example', '10.0.0.2:8080'])('refuses Host %s with 421', (host) => {
    expect(local.check({ host })).toEqual({ status: 421, message: `Host '${host}' is not allowed (see --allowed-hosts)` });
  });

  it('refuses a missing Host', () => {
    expect(local.check({})?.status).toBe(421);
  });

  it.each(['http://localhost:3000', 'http://127.0.0.1:6274', 'https://[::1]'])('allows loopback Origin %s', (origin) => {
    expect(local.check({ host: 'localhost:8080', origin })).toBeUndefined();
  });

  it.each(['http://evil.example', 'null', 'file://', 'chrome-extension://abc', 'http://localhost.evil.example'])('refuses Origin %s with 403', (origin) => {
    expect(local.check({ host: 'localhost:8080', origin })).toEqual({ status: 403, message: `Origin '${origin}' is not allowed (see --allowed-origins)` });
  });

  it('a request without Origin (not from a browser) passes', () => {
    expect(local.check({ host: '127.0.0.1:1' })).toBeUndefined();
  });

  it('extends both lists for a reverse proxy; a host entry with a port matches only that port', () => {
    const proxied = new RequestGuard({
      boundHost: '0.0.0.0',
      allowedHosts: ['mcp.example.com', 'other.example.com:8443'],
      allowedOrigins: ['https://app.example.com/'],
    });
    expect(proxied.check({ host: 'mcp.example.com' })).toBeUndefined();
    expect(proxied.check({ host: 'mcp.example.com:443' })).toBeUndefined();
    expect(proxied.check({ host: 'other.example.com:8443' })).toBeUndefined();
    expect(proxied.check({ host: 'other.example.com:9000' })?.status).toBe(421);
    expect(proxied.check({ host: 'mcp.example.com', origin: 'https://app.example.com' })).toBeUndefined();
    expect(proxied.check({ host: 'mcp.example.com', origin: 'http://app.example.com' })?.status).toBe(403);
  });

  it('the bound address is allowed as Host and Origin name', () => {
    const lan = new RequestGuard({ boundHost: '192.168.1.20', allowedHosts: [], allowedOrigins: [] });
    expect(lan.check({ host: '192.168.1.20:8080', origin: 'http://192.168.1.20:8080' })).toBeUndefined();
  });
});
