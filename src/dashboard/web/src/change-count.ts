/**
 * The dashboard's change counter as its pages read it (src/dashboard/http/sse-hub.ts): which instance of the dashboard,
 * how many changes it had been told of. An API answer carries the count it was read at (`X-Workgraph-Changes:
 * instance:count`); the event stream's first event, `opened`, the count it opened at.
 */
export interface ChangeCount {
  instance: string;
  count: number;
}

/** The `X-Workgraph-Changes` header, or undefined when absent or not `instance:count`. */
export function changeCountOf(header: string | null | undefined): ChangeCount | undefined {
  const m = header ? /^([^:\s]+):(\d+)$/.exec(header) : null;
  return m ? { instance: m[1], count: Number(m[2]) } : undefined;
}

/**
 * Whether data read at `readAt` may lack a change the stream opened at `openedAt` will never tell of: read at a lower
 * count (a change came between the read and the stream's start), or from another instance than the stream's (a
 * restarted dashboard counts from 0 again). Unknown on either side: no.
 */
export function readBeforeStream(readAt: ChangeCount | undefined, openedAt: ChangeCount | undefined): boolean {
  if (!readAt || !openedAt) return false;
  return readAt.instance !== openedAt.instance || readAt.count < openedAt.count;
}
