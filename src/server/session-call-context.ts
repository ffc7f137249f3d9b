import { fileURLToPath } from 'node:url';
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import type { CallInput } from '../kernel/call-input';
import { LOCAL_IDENTITY, type Identity } from '../kernel/identity';
import type { Logger } from '../kernel/logger';
import type { Sampler } from '../kernel/sampler';
import { callerIdentity, type AuthInfoLike } from './caller-identity';
import type { ProtocolEra } from './protocol-era';

/** Where a 2026-07-28 request names its client (the envelope in its `_meta`). */
const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

/** What a modern call gets from its retried request instead of asking its client (input_required). */
export interface CallSeam {
  input?: CallInput;
  sampler?: Sampler;
}

export interface SessionCallContextDeps {
  era: ProtocolEra;
  logger: Logger;
  /** Whom a request without a verified token runs as. */
  caller?: Identity;
  /** Whether this request's client shows MCP Apps views (session-views.ts). */
  showsViews: (ctx: ServerContext) => boolean;
}

/**
 * The CallContext of each call of one session: its progress notifications, its sampler (legacy: this session's client
 * when it samples; modern: the retried call's completions), its client's roots (read once per session, again after
 * roots/list_changed) and who it runs as.
 */
export class SessionCallContexts {
  private rootsCache?: Promise<string[] | undefined>;

  constructor(
    private readonly sdk: Server,
    private readonly deps: SessionCallContextDeps,
  ) {}

  /** The client said its roots changed: the next call reads them again. */
  forgetRoots(): void {
    this.rootsCache = undefined;
  }

  /** Who a request runs as (see caller-identity.ts). */
  identityOf(extra: ServerContext): Identity {
    return callerIdentity(extra.http?.authInfo as AuthInfoLike | undefined, this.deps.caller ?? LOCAL_IDENTITY);
  }

  build(extra: ServerContext, signal: () => AbortSignal, seam?: CallSeam): CallContext {
    const token = extra.mcpReq._meta?.progressToken;
    const progress =
      token === undefined
        ? () => undefined
        : (value: number, total?: number, message?: string) => {
            void extra.mcpReq
              .notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: value, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) },
              })
              .catch(() => undefined);
          };
    // Modern: no request to the client; a retried call's sampled completions (input_required) answer instead.
    const sampler = this.deps.era === 'modern' ? seam?.sampler : this.sampler();
    const input = seam?.input;
    const clientName = this.clientName(extra);
    // The session's own trust boundary: its client's roots, read once per session (again after roots/list_changed).
    const clientRoots = this.sdk.getClientCapabilities()?.roots ? () => (this.rootsCache ??= this.fetchClientRoots()) : undefined;
    return {
      get signal() {
        return signal();
      },
      progress,
      sampler,
      clientRoots,
      identity: this.identityOf(extra),
      ...(clientName ? { client: clientName } : {}),
      ...(input ? { input } : {}),
      ...(this.deps.showsViews(extra) ? { showsViews: true } : {}),
    };
  }

  /**
   * The calling client's `clientInfo.name`, kept beside the actor of what the call records: the `initialize`-declared
   * one (legacy), or the request's own envelope's (2026-07-28: no handshake, every request names its client).
   */
  private clientName(extra: ServerContext): string | undefined {
    if (this.deps.era !== 'modern') return this.sdk.getClientVersion()?.name;
    const info = (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
    return typeof info?.name === 'string' && info.name !== '' ? info.name : undefined;
  }

  private async fetchClientRoots(): Promise<string[] | undefined> {
    try {
      const { roots } = await this.sdk.listRoots(undefined, { timeout: 10_000 });
      return roots.filter((r) => r.uri.startsWith('file://')).map((r) => fileURLToPath(r.uri));
    } catch (e) {
      this.rootsCache = undefined;
      this.deps.logger.warn('could not list client roots; using the configured roots', { err: (e as Error).message });
      return undefined;
    }
  }

  private sampler(): Sampler | undefined {
    if (!this.sdk.getClientCapabilities()?.sampling) return undefined;
    return {
      complete: async ({ systemPrompt, prompt, maxTokens }, signal) => {
        const result = await this.sdk.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], systemPrompt, maxTokens },
          { signal, timeout: 5 * 60_000 },
        );
        const content = Array.isArray(result.content) ? result.content[0] : result.content;
        if (!content || content.type !== 'text') throw new Error('the client answered the sampling request without text');
        return content.text;
      },
    };
  }
}
