import type { Logger } from '../kernel/logger';

/**
 * The logger of a one-shot command (`workgraph knowledge …`): each warning or error one plain line on stderr,
 * `workgraph knowledge search: <message> (project: demo, reason: no index, nodes: 3)`, in the command's own error
 * prefix — a person reads it, not a log collector, and stdout stays the command's answer (`--json` parseable).
 * Debug and info entries are dropped: a command that went well says nothing but its answer.
 */
export function lineLogger(prefix: string, write: (line: string) => void = (line) => void process.stderr.write(line), bound: Record<string, unknown> = {}): Logger {
  const line = (msg: string, fields: Record<string, unknown> = {}) => {
    const all = Object.entries({ ...bound, ...fields }).filter(([, v]) => v !== undefined);
    const detail = all.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
    // One line whatever the fields hold (an error message may carry newlines).
    write(`${prefix}: ${msg}${detail ? ` (${detail})` : ''}`.replace(/\s*[\r\n]+\s*/g, ' ') + '\n');
  };
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: line,
    error: line,
    child: (fields) => lineLogger(prefix, write, { ...bound, ...fields }),
  };
}
