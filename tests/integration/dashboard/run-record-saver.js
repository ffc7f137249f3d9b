// Saves one graph run record into DATA_DIR through the real FileGraphRunStore (temp file, fsync, rename), as a server
// process recording a run does. Used by data-dir-watcher.test.ts, which runs it while its own event loop is blocked.
// Usage: node run-record-saver.js DATA_DIR RECORD_JSON
'use strict';
require('../tasks/race/ts-register.js');
const path = require('node:path');
const { FileGraphRunStore } = require(path.join(__dirname, '..', '..', '..', 'src', 'modules', 'graph', 'infrastructure', 'file-graph-run-store.ts'));

const [dataDir, record] = process.argv.slice(2);
new FileGraphRunStore(dataDir).save(JSON.parse(record)).catch((e) => {
  process.stderr.write(String(e && e.stack) + '\n');
  process.exit(1);
});
