import { StderrRingBuffer } from '../../../../src/modules/graph/infrastructure/mcp/stderr-ring-buffer';

describe('StderrRingBuffer', () => {
  it('returns everything while under capacity', () => {
    const buffer = new StderrRingBuffer(64);
    buffer.append('first line\n');
    buffer.append(Buffer.from('second line\n'));
    expect(buffer.tail()).toBe('first line\nsecond line');
  });

  it('keeps only the last capacity bytes across many small chunks', () => {
    const buffer = new StderrRingBuffer(10);
    for (let i = 0; i < 100; i++) buffer.append(`${i % 10}`);
    expect(buffer.tail()).toBe('0123456789');
  });

  it('keeps the end of a single chunk larger than the capacity', () => {
    const buffer = new StderrRingBuffer(8);
    buffer.append('abc');
    buffer.append('x'.repeat(1000) + 'THE END!');
    expect(buffer.tail()).toBe('THE END!');
  });

  it('cuts a chunk that straddles the capacity boundary', () => {
    const buffer = new StderrRingBuffer(6);
    buffer.append('aaaa');
    buffer.append('bbbb');
    expect(buffer.tail()).toBe('aabbbb');
  });

  it('never starts with half a multi-byte character', () => {
    const buffer = new StderrRingBuffer(5);
    buffer.append('ééé'); // 6 bytes: the cut falls inside the first é
    expect(buffer.tail()).toBe('éé');
  });

  it('is empty after clear and rejects a non-positive capacity', () => {
    const buffer = new StderrRingBuffer(4);
    buffer.append('data');
    buffer.clear();
    expect(buffer.tail()).toBe('');
    expect(() => new StderrRingBuffer(0)).toThrow(RangeError);
  });
});
