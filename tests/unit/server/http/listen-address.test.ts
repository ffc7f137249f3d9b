import { formatHostPort, isLoopbackHost, parseListenAddress } from '../../../../src/server/http/listen-address';

describe('parseListenAddress (--http [HOST:]PORT)', () => {
  it.each([
    ['8080', { host: '127.0.0.1', port: 8080 }],
    ['0', { host: '127.0.0.1', port: 0 }],
    ['127.0.0.1:3000', { host: '127.0.0.1', port: 3000 }],
    ['localhost:3000', { host: 'localhost', port: 3000 }],
    ['0.0.0.0:80', { host: '0.0.0.0', port: 80 }],
    ['[::1]:9000', { host: '::1', port: 9000 }],
    [' mcp.example.com:443 ', { host: 'mcp.example.com', port: 443 }],
  ])('%s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each(['', 'abc', ':8080', '::1:8080', '127.0.0.1:', '127.0.0.1:http', '[nothost]:80', '8080.5'])('refuses %j naming the setting', (text) => {
    expect(() => parseListenAddress(text, 'WORKGRAPH_HTTP')).toThrow(/^WORKGRAPH_HTTP: expected \[HOST:\]PORT/);
  });

  it('refuses a port over 65535', () => {
    expect(() => parseListenAddress('70000')).toThrow('--http: port must be 0-65535, got 70000');
  });
});

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', 'app.localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  it.each(['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', 'localhost.example.com', '128.0.0.1'])('%s is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
});

it('formatHostPort brackets IPv6', () => {
  expect(formatHostPort('::1', 80)).toBe('[::1]:80');
  expect(formatHostPort('127.0.0.1', 80)).toBe('127.0.0.1:80');
});
