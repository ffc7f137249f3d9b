// `npm run bench`: runs every benchmark in turn; each prints one JSON line per figure. Pass names to run some only:
// `npm run bench -- rpc-latency cold-start`.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const all = fs
  .readdirSync(__dirname)
  // lib*.js are helpers the benches share, not benches.
  .filter((f) => f.endsWith('.js') && f !== 'run-all.js' && !f.startsWith('lib'))
  .map((f) => f.replace(/\.js$/, ''))
  .sort();
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
let failed = 0;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark ${name}; known: ${all.join(', ')}`);
    process.exit(2);
  }
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, `${name}.js`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
