import { isIP } from 'node:net';

/** Where the HTTP transport listens. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** The address used when `--http` names only a port: loopback, so nothing off the machine can reach it. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

/**
 * Parses `--http [HOST:]PORT` (and WORKGRAPH_HTTP): `8080`, `127.0.0.1:8080`, `localhost:8080`, `[::1]:8080`,
 * `0.0.0.0:8080`. Port 0 asks the system for a free port (tests, benchmarks).
 * @throws Error with a one-line message naming the setting and what was expected.
 */
export function parseListenAddress(value: string, setting = '--http'): ListenAddress {
  const text = value.trim();
  const expected = `${setting}: expected [HOST:]PORT (for example 8080, 127.0.0.1:8080 or [::1]:8080), got '${value}'`;
  let host = DEFAULT_HTTP_HOST;
  let portText = text;
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (bracketed) {
    host = bracketed[1];
    portText = bracketed[2];
    if (isIP(host) !== 6) throw new Error(expected);
  } else if (text.includes(':')) {
    const at = text.lastIndexOf(':');
    host = text.slice(0, at);
    portText = text.slice(at + 1);
    // A bare IPv6 address is ambiguous with its last group: ask for brackets.
    if (host.includes(':') || host === '') throw new Error(expected);
  }
  if (!/^\d+$/.test(portText)) throw new Error(expected);
  const port = Number(portText);
  if (port > 65_535) throw new Error(`${setting}: port must be 0-65535, got ${port}`);
  return { host, port };
}

/** True for names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** `host:port` as it appears in a URL (IPv6 in brackets). */
export function formatHostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
