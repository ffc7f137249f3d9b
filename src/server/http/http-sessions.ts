import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';

/** What the HTTP transport keeps per MCP session. */
export interface HttpSession {
  id: string;
  transport: StreamableHTTPServerTransport;
  /** Closes the session's protocol server (its listeners go with it). */
  closeServer: () => Promise<void>;
  /** The token holder that opened the session; other holders cannot use it. Undefined without authentication. */
  clientId?: string;
  /** HTTP requests of this session in progress (an open SSE stream counts until it ends). */
  active: number;
  /** When the last request of this session ended (ms, monotonic clock). */
  lastSeen: number;
}

/**
 * The open sessions by `Mcp-Session-Id`, with the cap (`--max-sessions`) and the idle sweep
 * (`--session-idle-timeout`). A session is idle when none of its requests is in progress and its last one ended
 * longer ago than the timeout; idle sessions are closed as if the client had sent DELETE.
 */
export class HttpSessionTable {
  private readonly sessions = new Map<string, HttpSession>();
  /** Sessions being initialized (counted against the cap before they have an id). */
  private pending = 0;
  /** The same, per token holder. */
  private readonly pendingBy = new Map<string, number>();
  private sweeper?: NodeJS.Timeout;

  /**
   * @param perHolderCap the most sessions one token holder (identity) may hold at once: half of `maxSessions` when
   *   several identities may connect, so one of them cannot take every place (undefined: no such bound).
   */
  constructor(
    private readonly maxSessions: number,
    private readonly idleTimeoutMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly perHolderCap?: number,
  ) {}

  /** Sessions (open and being opened) of one holder. */
  heldBy(holder: string | undefined): number {
    if (holder === undefined) return 0;
    let n = this.pendingBy.get(holder) ?? 0;
    for (const s of this.sessions.values()) if (s.clientId === holder) n++;
    return n;
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  all(): HttpSession[] {
    return [...this.sessions.values()];
  }

  /**
   * Reserves a place for a new session of `holder`: `'full'` when the cap is reached, `'holder'` when that holder
   * already has its share. Release with {@link release} or {@link add}.
   */
  reserve(holder?: string): true | 'full' | 'holder' {
    if (this.sessions.size + this.pending >= this.maxSessions) return 'full';
    if (this.perHolderCap !== undefined && holder !== undefined && this.heldBy(holder) >= this.perHolderCap) return 'holder';
    this.pending++;
    if (holder !== undefined) this.pendingBy.set(holder, (this.pendingBy.get(holder) ?? 0) + 1);
    return true;
  }

  release(holder?: string): void {
    if (this.pending > 0) this.pending--;
    if (holder === undefined) return;
    const n = (this.pendingBy.get(holder) ?? 0) - 1;
    if (n > 0) this.pendingBy.set(holder, n);
    else this.pendingBy.delete(holder);
  }

  /** Turns a reservation into an open session. */
  add(session: HttpSession): void {
    this.release(session.clientId);
    this.sessions.set(session.id, session);
  }

  remove(id: string): HttpSession | undefined {
    const s = this.sessions.get(id);
    this.sessions.delete(id);
    return s;
  }

  /** Marks a request of `session` as started; the returned function marks it ended (call once). */
  begin(session: HttpSession): () => void {
    session.active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      session.active--;
      session.lastSeen = this.now();
    };
  }

  /** Sessions idle longer than the timeout. */
  idle(): HttpSession[] {
    const limit = this.now() - this.idleTimeoutMs;
    return this.all().filter((s) => s.active === 0 && s.lastSeen <= limit);
  }

  /** Calls `onIdle` with the idle sessions every so often (a fraction of the timeout, at most a minute). */
  startSweeping(onIdle: (sessions: HttpSession[]) => void): void {
    const every = Math.max(50, Math.min(60_000, Math.floor(this.idleTimeoutMs / 4)));
    this.sweeper = setInterval(() => {
      const idle = this.idle();
      if (idle.length > 0) onIdle(idle);
    }, every);
    this.sweeper.unref();
  }

  stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }
}
