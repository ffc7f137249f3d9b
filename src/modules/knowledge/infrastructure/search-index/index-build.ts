import type { HeldLock } from '../../../../kernel/files/file-lock';
import { makeDir } from '../../../../kernel/files/make-dir';
import { forEachLine } from '../line-reader';
import { parseNode } from '../ndjson-passes';
import { SEGMENT_MAX_DOCS, type SegmentRef } from './index-manifest';
import { writeSegmentFile } from './segment-files';
import { SegmentBuilder } from './segment-builder';

/**
 * Indexes the graph file from byte `start` to `end` (a line start; default its end) into segment files in `dir` of at most SEGMENT_MAX_DOCS nodes
 * each, written as they fill (under the lock, checked before each write); returns them in graph order.
 */
export async function indexGraph(graph: string, dir: string, lock: HeldLock, start: number, generation: number, end?: number): Promise<SegmentRef[]> {
  await makeDir(dir);
  const refs: SegmentRef[] = [];
  let builder = new SegmentBuilder(start, start);
  const full: SegmentBuilder[] = [];
  const write = async (b: SegmentBuilder) => {
    lock.assertHeld();
    refs.push(await writeSegmentFile(dir, b, generation));
  };
  const { bytes } = await forEachLine(
    graph,
    (text, offset, _lineNo, _terminated, raw) => {
      if (builder.size >= SEGMENT_MAX_DOCS) {
        builder.end = offset;
        full.push(builder);
        builder = new SegmentBuilder(offset, offset);
      }
      if (text === '') return;
      const node = parseNode(text);
      if (node) builder.add(node, offset, raw.length);
    },
    {
      start,
      ...(end !== undefined ? { end } : {}),
      afterChunk: async () => {
        for (const b of full.splice(0)) await write(b);
      },
    },
  );
  builder.end = bytes;
  for (const b of full.splice(0)) await write(b);
  await write(builder);
  return refs;
}
