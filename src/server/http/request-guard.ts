import { isLoopbackHost } from './listen-address';

/** The answer to a request refused before it reaches MCP. */
export interface Refusal {
  status: number;
  message: string;
}

export interface RequestGuardOptions {
  /** The address the server is bound to (allowed as a Host and Origin name besides the loopback names). */
  boundHost: string;
  /** Extra `Host` values (`--allowed-hosts`): `name` (any port) or `name:port`. */
  allowedHosts: readonly string[];
  /** Extra `Origin` values (`--allowed-origins`): `scheme://host[:port]`, compared exactly. */
  allowedOrigins: readonly string[];
}

/**
 * DNS-rebinding protection (the MCP transport spec asks it of local HTTP servers), applied with or without
 * authentication: a page on another site that makes a browser resolve its name to 127.0.0.1 sends that name as Host
 * and its own site as Origin, so both are checked against lists. Loopback names and the bound address are allowed by
 * default; a reverse proxy's public name is added with `--allowed-hosts` / `--allowed-origins`. A request without an
 * Origin header (not from a browser: the SDK, curl, IDE agents) passes the Origin check.
 */
export class RequestGuard {
  private readonly hostNames: Set<string>;
  private readonly hostsWithPort: Set<string>;
  private readonly origins: Set<string>;

  constructor(private readonly opts: RequestGuardOptions) {
    this.hostNames = new Set([normalizeName(opts.boundHost)]);
    this.hostsWithPort = new Set();
    for (const h of opts.allowedHosts) {
      const entry = h.trim().toLowerCase();
      if (!entry) continue;
      if (splitHost(entry).port === undefined) this.hostNames.add(normalizeName(entry));
      else this.hostsWithPort.add(entry);
    }
    this.origins = new Set(opts.allowedOrigins.map((o) => o.trim().toLowerCase().replace(/\/+$/, '')).filter(Boolean));
  }

  /** Undefined when the request may go on; else the status and one-line reason to answer. */
  check(headers: { host?: string; origin?: string | string[] }): Refusal | undefined {
    const host = headers.host?.trim().toLowerCase();
    if (!host || !this.hostAllowed(host)) {
      return { status: 421, message: `Host '${headers.host ?? ''}' is not allowed (see --allowed-hosts)` };
    }
    const origin = Array.isArray(headers.origin) ? headers.origin[0] : headers.origin;
    if (origin !== undefined && !this.originAllowed(origin.trim().toLowerCase())) {
      return { status: 403, message: `Origin '${origin}' is not allowed (see --allowed-origins)` };
    }
    return undefined;
  }

  private hostAllowed(host: string): boolean {
    if (this.hostsWithPort.has(host)) return true;
    const { name } = splitHost(host);
    return isLoopbackHost(name) || this.hostNames.has(normalizeName(name));
  }

  private originAllowed(origin: string): boolean {
    if (this.origins.has(origin.replace(/\/+$/, ''))) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (sandboxed pages, file://) and anything unparsable
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return isLoopbackHost(url.hostname) || this.hostNames.has(normalizeName(url.hostname));
  }
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/^\[|\]$/g, '');
}

/** `name:port`, `[v6]:port`, `name` or `[v6]` → name and port. */
function splitHost(host: string): { name: string; port?: string } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(host);
  if (v6) return { name: v6[1], port: v6[2] };
  const at = host.lastIndexOf(':');
  if (at > 0 && /^\d+$/.test(host.slice(at + 1)) && !host.slice(0, at).includes(':')) return { name: host.slice(0, at), port: host.slice(at + 1) };
  return { name: host };
}
