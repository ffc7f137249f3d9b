/**
 * A `--graphs` path that cannot be read is named on stderr once, not on every re-read of the paths: a watch event in
 * its folder (a data dir beside it being written) re-syncs the paths, and each sync used to warn again (the built
 * server's graph-paths e2e saw the warning twice on a busy machine).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/kernel/logger';
import { GraphHost } from '../../../src/modules/graph/infrastructure';
import { GraphToolPublisher } from '../../../src/modules/graph/infrastructure/graph-tool-publisher';
import { ToolRegistry } from '../../../src/kernel/tools/tool-registry';

test('an unreadable graph path is warned about once over many syncs, and again after it was readable and went away', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-graph-path-warn-'));
  const missing = path.join(dir, 'missing');
  const warnings: string[] = [];
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (msg) => void warnings.push(msg), error: () => undefined, child: () => logger };
  const publisher = new GraphToolPublisher(new GraphHost(), new ToolRegistry(), logger, [missing], { watch: false });
  try {
    await publisher.start();
    await publisher.sync();
    await publisher.sync();
    const about = () => warnings.filter((w) => w.startsWith('graph path skipped:') && w.includes(missing));
    expect(about()).toHaveLength(1);
    fs.mkdirSync(missing); // readable now (an empty graph folder)
    await publisher.sync();
    fs.rmdirSync(missing);
    await publisher.sync();
    await publisher.sync();
    expect(about()).toHaveLength(2);
  } finally {
    publisher.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
