// One counter process: increments the counter document N times through LockedDocument.swap, each increment decided on
// the revision read under the lock. Prints one JSON line: {ok: true} or {ok: false, message}.
// Usage: node locked-document-counter.js FILE N
'use strict';
require('../../tasks/race/ts-register.js');
const path = require('node:path');
const { LockedDocument } = require(path.join(__dirname, '..', '..', '..', '..', 'src', 'kernel', 'files', 'locked-document.ts'));

const [file, n] = process.argv.slice(2);
const doc = new LockedDocument(file, path.dirname(file), { parse: (t) => JSON.parse(t), serialize: (d) => JSON.stringify(d) });

(async () => {
  try {
    for (let i = 0; i < Number(n); i++) {
      await doc.swap('count in', (cur) => ({ next: { count: (cur ? cur.count : 0) + 1, by: [...(cur ? cur.by : []), process.pid] }, value: undefined }));
    }
    process.stdout.write(JSON.stringify({ ok: true }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ ok: false, message: e.message }) + '\n');
  }
})();
