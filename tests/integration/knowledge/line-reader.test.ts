import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { forEachLine, forEachLineBackward } from '../../../src/modules/knowledge/infrastructure/line-reader';

describe('NDJSON line readers (byte offsets, any chunk size)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-lines-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  const lines = ['{"a":1}', 'é€😀 multi-byte', '', 'x'.repeat(50), 'crlf line\r', 'last'];

  it.each([1, 2, 3, 7, 64, 1 << 16])('forward and backward agree with chunk size %i', async (chunkSize) => {
    const file = path.join(dir, `f${chunkSize}.ndjson`);
    const text = lines.join('\n') + '\n';
    await fs.writeFile(file, text);
    const fwd: { t: string; o: number }[] = [];
    await forEachLine(file, (t, o) => fwd.push({ t, o }), { chunkSize });
    expect(fwd.map((l) => l.t)).toEqual(['{"a":1}', 'é€😀 multi-byte', '', 'x'.repeat(50), 'crlf line', 'last']);
    const buf = Buffer.from(text);
    for (const l of fwd) expect(buf.toString('utf8', l.o, l.o + Buffer.byteLength(l.t))).toBe(l.t);

    const back: { t: string; o: number }[] = [];
    await forEachLineBackward(file, (t, o) => (back.push({ t, o }), true), { chunkSize });
    expect(back).toEqual(fwd.filter((l) => l.t !== '').reverse());

    // Stopping gives the offset of the last line visited; resuming from it continues with the older lines.
    const firstTwo: string[] = [];
    const { stoppedAt } = await forEachLineBackward(file, (t) => (firstTwo.push(t), firstTwo.length < 2), { chunkSize });
    expect(firstTwo).toEqual(['last', 'crlf line']);
    const rest: string[] = [];
    await forEachLineBackward(file, (t) => (rest.push(t), true), { chunkSize, from: stoppedAt! });
    expect(rest).toEqual(['x'.repeat(50), 'é€😀 multi-byte', '{"a":1}']);
  });

  it('reports an unterminated last line as such', async () => {
    const file = path.join(dir, 'torn.ndjson');
    await fs.writeFile(file, '{"a":1}\n{"b":');
    const seen: [string, boolean][] = [];
    await forEachLine(file, (t, _o, _n, terminated) => seen.push([t, terminated]), { chunkSize: 4 });
    expect(seen).toEqual([
      ['{"a":1}', true],
      ['{"b":', false],
    ]);
  });

  it('treats a missing file as empty', async () => {
    expect(await forEachLine(path.join(dir, 'none'), () => undefined)).toEqual({ lines: 0, bytes: 0 });
    expect((await forEachLineBackward(path.join(dir, 'none'), () => true)).stoppedAt).toBeNull();
  });

  it.each([3, 64, 1 << 16])('backward prefilter sees each line\'s raw bytes; refused lines never reach the callback (chunk %i)', async (chunkSize) => {
    const file = path.join(dir, `pre${chunkSize}.ndjson`);
    await fs.writeFile(file, ['{"id":"a","x":1}', '{"id":"b","x":2}\r', 'é€😀', '{"id":"c","x":3}'].join('\n') + '\n');
    const raws: string[] = [];
    const seen: string[] = [];
    await forEachLineBackward(file, (t) => (seen.push(t), true), {
      chunkSize,
      prefilter: (raw) => (raws.push(raw.toString('utf8')), !raw.includes('"b"')),
    });
    expect(raws).toEqual(['{"id":"c","x":3}', 'é€😀', '{"id":"b","x":2}\r', '{"id":"a","x":1}']);
    expect(seen).toEqual(['{"id":"c","x":3}', 'é€😀', '{"id":"a","x":1}']);
  });

  // A line spread over many chunks is copied once (when its end is found), not once per chunk: linear, not quadratic.
  it('copies a long line once, forward and backward (bytes copied ≈ the line, not chunks × line)', async () => {
    const file = path.join(dir, 'long.ndjson');
    const long = 'y'.repeat(2_000_000);
    await fs.writeFile(file, `{"a":1}\n${long}\n{"b":2}\n`);
    const chunkSize = 4096; // ≈ 490 chunks for the long line: a copy per chunk would move ≈ 490 MB
    let copied = 0;
    const seen: number[] = [];
    await forEachLine(file, (t) => seen.push(t.length), { chunkSize, onCopy: (n) => (copied += n) });
    expect(seen).toEqual([7, long.length, 7]);
    expect(copied).toBeLessThanOrEqual(long.length + 2 * chunkSize);

    copied = 0;
    const back: number[] = [];
    await forEachLineBackward(file, (t) => (back.push(t.length), true), { chunkSize, onCopy: (n) => (copied += n) });
    expect(back).toEqual([7, long.length, 7]);
    expect(copied).toBeLessThanOrEqual(long.length + 2 * chunkSize);
  });

  it('hands out the raw bytes of each line (invalid UTF-8 and \\r kept)', async () => {
    const file = path.join(dir, 'raw.ndjson');
    const bad = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0x7d]); // `{\xff\xfe"}`: not UTF-8
    const content = Buffer.concat([Buffer.from('ok\r\n'), bad, Buffer.from('\nend')]);
    await fs.writeFile(file, content);
    for (const chunkSize of [1, 3, 1 << 16]) {
      const raws: Buffer[] = [];
      await forEachLine(file, (_t, _o, _n, _term, raw) => raws.push(Buffer.from(raw)), { chunkSize });
      expect(raws.map((r) => r.toString('hex'))).toEqual([Buffer.from('ok\r').toString('hex'), bad.toString('hex'), Buffer.from('end').toString('hex')]);
    }
  });
});
