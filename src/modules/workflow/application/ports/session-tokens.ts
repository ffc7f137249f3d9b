/**
 * What a session token stands for. `continue` and `retry` behave alike; `checkpoint` forks when it is not the head;
 * `resume` (handed out by workflow_resume) records a resumed event when first used.
 */
export interface TokenClaims {
  kind: 'continue' | 'retry' | 'checkpoint' | 'resume';
  sessionId: string;
  node: number;
}

/** Signs and verifies the short opaque tokens of sessions (HMAC adapter: infrastructure/sessions/hmac-session-tokens.ts). */
export interface SessionTokens {
  sign(claims: TokenClaims): Promise<string>;
  /** @throws InvalidTokenError naming `field` for a forged, truncated, altered or foreign token. */
  verify(token: string, field: string): Promise<TokenClaims>;
  /** A new random session id (16 lowercase hex digits: what tokens carry). */
  newSessionId(): string;
}
