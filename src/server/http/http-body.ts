import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; text: string } | { ok: false; tooLarge: true };

/**
 * Reads a request body up to `maxBytes`. A body over the bound (declared or observed) is read to its end and thrown
 * away, so the client gets the 413 answer instead of a reset connection while it is still sending; nothing over the
 * bound is kept in memory.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let tooLarge = Number(req.headers['content-length']) > maxBytes;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      received += chunk.length;
      if (received > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? { ok: false, tooLarge: true } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', reject);
  });
}
