import type * as http from 'node:http';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { TokenVerifier, VerifiedToken } from '../../kernel/auth/token-verifier';
import { hasScope, SCOPES, type Scope } from '../../kernel/identity';
import { SERVER_ERROR, sendJson, sendRpcError } from './http-answers';
import { formatHostPort, type ListenAddress } from './listen-address';
import { MCP_PATH, RESOURCE_METADATA_PATH } from './mcp-http-paths';

/** What the bearer side of the HTTP transport reads of its options (see HttpTransportOptions). */
export interface BearerAuthOptions {
  listen: ListenAddress;
  verifier?: TokenVerifier;
  oauthIssuer?: string;
  scopeOf?: (name: string) => Scope | undefined;
  publicUrl?: string;
}

/**
 * Bearer authentication of `/mcp`: the token check and its 401 challenge, the RFC 9728 protected-resource metadata
 * that challenge points to, and the 403 scope challenge of an OAuth token lacking a call's scope.
 */
export class BearerAuth {
  constructor(private readonly opts: BearerAuthOptions) {}

  /** The holder of the request's bearer token; undefined without authentication; false once refused (401 sent). */
  async authenticate(req: http.IncomingMessage, res: http.ServerResponse): Promise<VerifiedToken | undefined | false> {
    const verifier = this.opts.verifier;
    if (!verifier) return undefined;
    const header = req.headers.authorization ?? '';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    const verified = match ? await verifier.verify(match[1]) : undefined;
    if (verified && (verified.expiresAt === undefined || verified.expiresAt * 1000 > Date.now())) return verified;
    const challenge = `Bearer resource_metadata="${this.baseUrl(req)}${RESOURCE_METADATA_PATH}"` + (match ? ', error="invalid_token"' : '');
    sendRpcError(res, 401, SERVER_ERROR, match ? 'Unauthorized: the bearer token is not valid' : 'Unauthorized: a bearer token is required', {
      'WWW-Authenticate': challenge,
    });
    return false;
  }

  /** RFC 9728 protected-resource metadata: what the resource is and how to present a token. */
  resourceMetadata(req: http.IncomingMessage, res: http.ServerResponse): void {
    sendJson(
      res,
      200,
      {
        resource: `${this.baseUrl(req)}${MCP_PATH}`,
        ...(this.opts.oauthIssuer ? { authorization_servers: [this.opts.oauthIssuer] } : {}),
        bearer_methods_supported: ['header'],
        resource_name: 'workgraph',
        scopes_supported: [...SCOPES],
      },
      { 'Cache-Control': 'max-age=3600' },
    );
  }

  /**
   * An OAuth token lacking the scope a call in the body needs: 403 with a scope challenge (RFC 6750 §3.1, MCP's
   * step-up authorization) naming the scopes to ask for — those it has plus the missing one. True when answered.
   */
  insufficientScope(req: http.IncomingMessage, res: http.ServerResponse, auth: VerifiedToken, messages: JSONRPCMessage[]): boolean {
    const scopeOf = this.opts.scopeOf;
    if (!scopeOf) return false;
    for (const m of messages) {
      if (!isJSONRPCRequest(m)) continue;
      const name = m.method === 'tools/call' ? (m.params as { name?: unknown } | undefined)?.name : m.method;
      const needed = typeof name === 'string' ? scopeOf(name) : undefined;
      if (!needed || hasScope(auth.identity, needed)) continue;
      const ask = [...new Set([...auth.identity.scopes, needed])].join(' ');
      const challenge =
        `Bearer error="insufficient_scope", scope="${ask}", resource_metadata="${this.baseUrl(req)}${RESOURCE_METADATA_PATH}", ` +
        `error_description="${String(name)} needs the '${needed}' scope"`;
      sendRpcError(res, 403, SERVER_ERROR, `Forbidden: ${String(name)} needs the '${needed}' scope; the access token of '${auth.identity.name}' has ${auth.identity.scopes.join(', ') || 'none'}`, {
        'WWW-Authenticate': challenge,
      });
      return true;
    }
    return false;
  }

  private baseUrl(req: http.IncomingMessage): string {
    if (this.opts.publicUrl) return this.opts.publicUrl.replace(/\/+$/, '').replace(/\/mcp$/, '');
    return `http://${req.headers.host ?? formatHostPort(this.opts.listen.host, this.opts.listen.port)}`;
  }
}
