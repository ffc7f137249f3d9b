import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { JsonRpcErrorCodes } from './json-rpc-codes';
import { classifyMessage, maxNestingDepth, topLevelId } from './json-rpc-frame';
import { stringifyMessage } from './known-json';

/** Options of {@link LineTransport}, with their defaults. */
export interface LineTransportOptions {
  /** Longest accepted line in bytes; a longer one is answered -32600 and skipped, the stream goes on. Default 16 MiB. */
  maxLineBytes?: number;
  /** Deepest accepted nesting of arrays/objects; deeper → -32600. Default 256. */
  maxDepth?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 256;

/**
 * Newline-delimited JSON-RPC over injected streams (stdin/stdout in production, in-memory pairs in tests).
 *
 * Unlike the SDK's StdioServerTransport it: answers unparseable lines with -32700 (id null) and messages that are not
 * JSON-RPC with -32600; bounds a line's size and nesting depth; treats the end of input or a broken output pipe as the
 * end of the session (`onclose`), never crashing.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  /**
   * Called once when the input ends (EOF) while the output still works. When set, the transport stays open so the
   * answers to requests already received can still be sent; the owner closes it when they are. When not set, the end
   * of input closes the transport at once.
   */
  oninputend?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxLineBytes: number;
  private readonly maxDepth: number;
  private chunks: Buffer[] = [];
  private bufferedBytes = 0;
  /** True while skipping the rest of an oversized line. */
  private discarding = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: LineTransportOptions = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.write(stringifyMessage(message) + '\n');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.off('error', this.onInputError);
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private write(text: string): void {
    if (this.closed || this.output.destroyed || this.output.writableEnded) return;
    try {
      this.output.write(text);
    } catch (e) {
      this.onOutputError(e as Error);
    }
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (buf.length > 0 && !this.closed) {
      const nl = buf.indexOf(0x0a);
      if (nl === -1) {
        this.accumulate(buf);
        return;
      }
      this.accumulate(buf.subarray(0, nl));
      buf = buf.subarray(nl + 1);
      this.endOfLine();
    }
  };

  private accumulate(part: Buffer): void {
    if (this.discarding || part.length === 0) return;
    if (this.bufferedBytes + part.length > this.maxLineBytes) {
      this.chunks = [];
      this.bufferedBytes = 0;
      this.discarding = true;
      return;
    }
    this.chunks.push(part);
    this.bufferedBytes += part.length;
  }

  private endOfLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.replyError(null, JsonRpcErrorCodes.InvalidRequest, `Invalid Request: message longer than ${this.maxLineBytes} bytes`);
      return;
    }
    // Most lines arrive in one chunk: decode it where it lies instead of copying it into a new buffer first.
    const line = (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.bufferedBytes)).toString('utf8');
    this.chunks = [];
    this.bufferedBytes = 0;
    this.handleLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }

  private handleLine(line: string): void {
    if (line.trim() === '') return;
    // A line cannot nest deeper than it is long, so short lines (most requests) skip the scan.
    if (line.length > this.maxDepth && maxNestingDepth(line, this.maxDepth) > this.maxDepth) {
      // The id sits at the top level and is read without parsing the deep part, so the client gets its answer.
      this.replyError(topLevelId(line), JsonRpcErrorCodes.InvalidRequest, `Invalid Request: nested deeper than ${this.maxDepth} levels`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (e) {
      // V8's message quotes a snippet of the input: control characters in it would break the one-line rule.
      const reason = (e as Error).message.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
      this.replyError(null, JsonRpcErrorCodes.ParseError, `Parse error: ${reason}`);
      return;
    }
    const frame = classifyMessage(parsed);
    if (frame.kind === 'invalid') {
      this.replyError(frame.id, JsonRpcErrorCodes.InvalidRequest, `Invalid Request: ${frame.reason}`);
      return;
    }
    try {
      this.onmessage?.(frame.message);
    } catch (e) {
      this.onerror?.(e as Error);
    }
  }

  private replyError(id: string | number | null, code: number, message: string): void {
    this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n');
  }

  private inputEnded = false;

  private readonly onEnd = (): void => {
    if (this.inputEnded || this.closed) return;
    this.inputEnded = true;
    // A last line without a trailing newline is still a request.
    if (this.bufferedBytes > 0 || this.discarding) this.endOfLine();
    this.input.off('data', this.onData);
    if (this.oninputend) this.oninputend();
    else void this.close();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  /** EPIPE and friends: the client is gone; end the session instead of crashing. */
  private readonly onOutputError = (error: Error): void => {
    if (!this.closed) this.onerror?.(error);
    void this.close();
  };
}
