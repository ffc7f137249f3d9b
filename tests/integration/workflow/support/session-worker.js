// A plain-node worker over a data dir shared with the test.
//   race SRC DATA TOKEN NOTES START_AT   one workflow_continue at the agreed time; prints one JSON line
//   walk SRC DATA TOKEN COUNT            continues until complete, printing `ACK <completedSteps> <token>` after each
//                                        acknowledged answer (the test SIGKILLs it at a random moment)
'use strict';
const { makeKit, longWorkflow } = require('./session-kit.js');

const [mode, src, dataDir, token, arg, startAt] = process.argv.slice(2);

async function race() {
  const kit = makeKit(src, dataDir, [longWorkflow(1000)]);
  await kit.tokens.verify(token, 'continueToken'); // key loaded before the start signal
  await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
  try {
    const a = await kit.next.execute({ continueToken: token, output: { notesMarkdown: arg } });
    process.stdout.write(JSON.stringify({ ok: true, status: a.status, continueToken: a.continueToken, replayed: !!a.replayed, completionId: a.step && a.step.completionId }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ ok: false, code: e.code, message: e.message }) + '\n');
  }
}

async function walk() {
  const kit = makeKit(src, dataDir, [longWorkflow(Number(arg))]);
  let t = token;
  process.stdout.write('READY\n');
  for (;;) {
    const s = await kit.store.load((await kit.tokens.verify(t, 't')).sessionId);
    const a = await kit.next.execute({ continueToken: t, output: { notesMarkdown: `round ${s.head.completedSteps.length} DONE` }, context: { last: s.head.completedSteps.length } });
    process.stdout.write(`ACK ${a.isComplete ? 'complete' : s.head.completedSteps.length + 1} ${a.continueToken}\n`);
    if (a.isComplete) return;
    t = a.continueToken;
  }
}

(mode === 'race' ? race() : walk()).catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(3);
});
