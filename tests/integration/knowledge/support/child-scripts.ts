/**
 * Plain-JS scripts run by `node` in child processes against the transpiled sources (see transpile-src.ts). Each
 * prints one `ready`/`done` line on stdout so the parent can time things, and exits 1 with the error on stderr.
 */

/** argv: srcDir dataDir projectContext prefix count batch — appends `count` nodes through AddNodes, `batch` per call. */
export const APPENDER_JS = `
require('reflect-metadata');
const [srcDir, dataDir, projectContext, prefix, count, batch] = process.argv.slice(2);
const { createNdjsonKnowledgeStore } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store');
const { RandomIdGenerator } = require(srcDir + '/kernel/random-id-generator');
const { AddNodes } = require(srcDir + '/modules/knowledge/application/use-cases/add-nodes');
const { silentLogger } = require(srcDir + '/kernel/logger');
const { systemClock } = require(srcDir + '/kernel/clock');
(async () => {
  const store = createNdjsonKnowledgeStore(dataDir);
  const add = new AddNodes(store, new RandomIdGenerator(), systemClock, silentLogger);
  let previous;
  for (let i = 0; i < Number(count); i += Number(batch)) {
    const nodes = [];
    for (let j = i; j < Math.min(i + Number(batch), Number(count)); j++) {
      const id = prefix + '-' + j;
      nodes.push({ id, thought: 'thought ' + id + ' ' + 'x'.repeat(200), role: 'actor', tags: [prefix], parents: previous ? [previous] : [] });
      previous = id;
    }
    await add.execute({ projectContext, nodes });
  }
  process.stdout.write('done\\n');
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;

/** argv: srcDir dataDir projectContext ids(comma-separated) — deletes each id with its own DeleteNodes call. */
export const DELETER_JS = `
require('reflect-metadata');
const [srcDir, dataDir, projectContext, ids] = process.argv.slice(2);
const { createNdjsonKnowledgeStore } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store');
const { DeleteNodes } = require(srcDir + '/modules/knowledge/application/use-cases/delete-nodes');
const { silentLogger } = require(srcDir + '/kernel/logger');
const { systemClock } = require(srcDir + '/kernel/clock');
(async () => {
  const del = new DeleteNodes(createNdjsonKnowledgeStore(dataDir), systemClock, silentLogger);
  for (const id of ids.split(',')) {
    const out = await del.execute({ projectContext, nodeIds: [id], reason: 'race' });
    if (!out.success) throw new Error('delete of ' + id + ' refused: ' + out.warnings.join('; '));
  }
  process.stdout.write('done\\n');
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;

/** argv: srcDir dataDir projectContext ids(comma-separated) — one delete of all ids; prints `start` before it. */
export const REBUILDER_JS = `
require('reflect-metadata');
const [srcDir, dataDir, projectContext, ids] = process.argv.slice(2);
const { createNdjsonKnowledgeStore } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store');
const { DeleteNodes } = require(srcDir + '/modules/knowledge/application/use-cases/delete-nodes');
const { silentLogger } = require(srcDir + '/kernel/logger');
const { systemClock } = require(srcDir + '/kernel/clock');
(async () => {
  const del = new DeleteNodes(createNdjsonKnowledgeStore(dataDir), systemClock, silentLogger);
  process.stdout.write('start\\n');
  const out = await del.execute({ projectContext, nodeIds: ids.split(','), reason: 'crash test' });
  if (!out.success) throw new Error('refused');
  process.stdout.write('done\\n');
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;
