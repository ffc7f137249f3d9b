// The size of a failing validate_task_loop answer on the wire (the whole tools/call result: text content plus
// structuredContent), for a command that prints 100 KiB on stdout and on stderr, beside the baseline measured in the
// same run: the bytes the command printed. Also the answer of the 40th failed attempt (earlier attempts are not in it)
// beside the answer of the 2nd, and the graph file after 40 attempts beside after 20 (the node keeps 20 records).
const fs = require('node:fs');
const path = require('node:path');
const { tempDir, workgraph, report } = require('./lib.js');

const STREAM_BYTES = 100 * 1024;

async function main() {
  const base = tempDir('wg-bench-answer-');
  const data = path.join(base, 'data');
  const root = path.join(base, 'project');
  fs.mkdirSync(root);
  const script = path.join(base, 'noisy.js');
  fs.writeFileSync(script, `process.stdout.write('o'.repeat(${STREAM_BYTES}) + '\\n'); process.stderr.write('e'.repeat(${STREAM_BYTES}) + '\\n'); process.exitCode = 1;`);
  const client = await workgraph(['--allow-root', base], { WORKGRAPH_DATA_DIR: data, WORKGRAPH_LOG_LEVEL: 'warn' });
  try {
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
      return r;
    };
    await call('init_project_graph', {
      projectName: 'bench', projectRoot: root,
      nodes: [{ id: 'noisy', title: 'Noisy', validation_command: `node '${script}'`, max_attempts: 100 }],
    });
    await call('start_task', { project: 'bench', nodeId: 'noisy' });
    const printed = 2 * (STREAM_BYTES + 1);
    const graphFile = path.join(data, 'projects', 'bench', 'task_graph.json');
    let second = 0;
    let fileAt20 = 0;
    for (let attempt = 1; attempt <= 40; attempt++) {
      const answer = await call('validate_task_loop', { project: 'bench', nodeId: 'noisy' });
      const bytes = Buffer.byteLength(JSON.stringify(answer));
      if (attempt === 20) fileAt20 = fs.statSync(graphFile).size;
      if (attempt === 2) {
        second = bytes;
        report('tasks-answer-size', 'failing validate_task_loop answer bytes (100 KiB per stream printed)', bytes, printed, 'bytes');
      }
      if (attempt === 40) {
        report('tasks-answer-size', 'answer bytes at attempt 40 beside attempt 2', bytes, second, 'bytes');
        report('tasks-answer-size', 'task_graph.json bytes after 40 failed attempts beside after 20', fs.statSync(graphFile).size, fileAt20, 'bytes');
      }
    }
  } finally {
    await client.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
