import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * The module-per-folder reshaping (issue 10) changed nothing on the wire: `tools/list` of the built server deep-equals
 * the answer recorded from the server before the move (tests/fixtures/snapshots/tools-list.before-modules.json).
 * A deliberate change to a tool's declaration updates the snapshot in the same commit, saying why.
 */
describe('tools/list snapshot', () => {
  it('deep-equals the answer recorded before the module move', async () => {
    const tmp = tempDir();
    const conn = await connectClient({ dataDir: tmp.dir });
    try {
      const { tools } = await conn.client.listTools();
      const before = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/snapshots/tools-list.before-modules.json'), 'utf8'));
      expect(JSON.parse(JSON.stringify({ tools }))).toEqual(before);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  });
});
