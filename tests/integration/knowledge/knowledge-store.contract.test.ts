import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { knowledgeStoreContract } from '../../contracts/knowledge-store.contract';

/** The KnowledgeStore contract against every adapter: the NDJSON files of a data dir. */
knowledgeStoreContract('ndjson files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-contract-'));
  // A clock a second apart per call: two deletes in one test get distinct backup names without waiting.
  let now = Date.parse('2026-11-30T10:00:00.000Z');
  return { store: createNdjsonKnowledgeStore(dir, { clock: { now: () => (now += 1000) } }), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});
