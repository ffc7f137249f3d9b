import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PinoLogger } from '../../../src/kernel/logging/pino-logger';

/** Entries below the level never build pino (cold start, shutdown lines), yet reach the MCP log sinks as before. */
describe('PinoLogger below its level', () => {
  let dir: string;
  let fd: number;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-pino-'));
    fd = fs.openSync(path.join(dir, 'log'), 'w');
  });
  afterEach(() => {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const written = () => fs.readFileSync(path.join(dir, 'log'), 'utf8');
  const built = (l: PinoLogger) => (l as unknown as { instance?: unknown }).instance !== undefined;

  it('writes nothing and builds no pino for entries below the level; sinks still get them', () => {
    const logger = PinoLogger.create('warn', fd);
    const seen: string[] = [];
    logger.addSink((level, msg) => seen.push(`${level} ${msg}`));
    logger.debug('d');
    logger.info('i');
    logger.child({ component: 'c' }).info('child info');
    expect(built(logger)).toBe(false);
    expect(written()).toBe('');
    expect(seen).toEqual(['debug d', 'info i', 'info child info']);
  });

  it('writes entries at or above the level in pino’s JSON shape', () => {
    const logger = PinoLogger.create('warn', fd);
    logger.info('quiet');
    logger.child({ component: 'c' }).warn('loud', { n: 1 });
    logger.error('worse');
    const lines = written().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'loud'],
      [50, 'worse'],
    ]);
    expect(lines[0]).toMatchObject({ name: 'workgraph', pid: process.pid, component: 'c', n: 1 });
  });

  it('writes nothing at all when silent', () => {
    const logger = PinoLogger.create('silent', fd);
    logger.error('e');
    expect(built(logger)).toBe(false);
    expect(written()).toBe('');
  });
});
