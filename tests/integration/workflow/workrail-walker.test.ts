import * as fs from 'node:fs';
import * as path from 'node:path';
import { folderStorage, walk, WORKRAIL_WORKFLOWS } from './workrail-helpers';

/** Every *.json under a folder, as the recursive loader reads it. */
function jsonFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? jsonFiles(path.join(dir, e.name)) : e.name.endsWith('.json') ? [path.join(dir, e.name)] : []));
}

describe('every workflow WorkRail ships (tests/fixtures/workrail, 48 files) loads and walks to completion', () => {
  const storage = folderStorage(WORKRAIL_WORKFLOWS);

  it('loads all 48 files from the recursive folder, none invalid', async () => {
    expect(jsonFiles(WORKRAIL_WORKFLOWS)).toHaveLength(48);
    const listing = await storage.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.workflows).toHaveLength(48);
    expect(listing.workflows.map((w) => w.id)).toEqual(expect.arrayContaining(['wr.discovery', 'wr.routine-design-review', 'test-artifact-loop-control']));
  });

  it('walks each one to completion with generic outputs, never blocked', async () => {
    const listing = await storage.list();
    const failures: string[] = [];
    let steps = 0;
    for (const summary of listing.workflows) {
      const workflow = await storage.get(summary.id);
      try {
        const record = walk(workflow);
        expect(record.steps.length).toBeGreaterThan(0);
        steps += record.steps.length;
      } catch (e) {
        failures.push(`${summary.id}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(steps).toBeGreaterThan(300);
    // Hundreds of steps through the real storage stack: ~10 s alone, several times that on a loaded 2-core CI machine.
  }, 240_000);
});
