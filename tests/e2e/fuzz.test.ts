import Ajv from 'ajv';
import { RawServer, tempDir } from './helpers/server-process';
import { prng } from '../helpers/prng';

/**
 * Protocol fuzzing of ONE built server over raw pipes: at least 10,000 generated frames (random bytes with invalid
 * UTF-8 and NUL, truncated JSON, JSON that is not JSON-RPC, wrong `jsonrpc`, ids of every type, wrong params for every
 * tool and plain method, deep nesting, ~10 MB lines) interleaved with valid requests whose answers are checked.
 *
 * Deterministic for a seed: WORKGRAPH_FUZZ_SEED=<n> replays a run; the seed is printed when the test fails.
 */

const SEED = process.env.WORKGRAPH_FUZZ_SEED ? Number(process.env.WORKGRAPH_FUZZ_SEED) >>> 0 : (Date.now() ^ (process.pid << 8)) >>> 0;
const FUZZ_FRAMES = 10_000;
/** Frames written between two synchronising pings: bounds the work queued in the server. */
const BATCH = 250;
const TEN_MB = 10 * 1024 * 1024;

type Id = string | number;
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Msg = Record<string, unknown>;

/** What the server must answer to one frame. */
type Expect =
  | { kind: 'none' }
  | { kind: 'nullError'; code: number }
  | { kind: 'error'; id: Id; code: number }
  | { kind: 'toolError'; id: Id; errorCode: string }
  | { kind: 'result'; id: Id; check: (result: Msg) => void };

interface Frame {
  line: Buffer;
  expect: Expect;
  label: string;
}

interface ToolInfo {
  name: string;
  inputSchema: Record<string, unknown>;
}

const PLAIN_METHODS = ['workflow_list', 'workflow_get', 'workflow_next', 'workflow_validate', 'workflow_validate_json', 'workflow_get_schema'];

describe(`protocol fuzzing (built server, seed ${SEED})`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let raw: RawServer | undefined;
  beforeAll(() => {
    tmp = tempDir('wg-fuzz-');
  });
  afterAll(() => {
    raw?.kill();
    tmp.cleanup();
  });

  it('survives 10,000+ hostile frames, answers every valid request correctly and every id exactly once', async () => {
    try {
      await fuzz();
    } catch (e) {
      (e as Error).message = `fuzz seed ${SEED} (replay with WORKGRAPH_FUZZ_SEED=${SEED}): ${(e as Error).message}`;
      throw e;
    }
  }, 180_000);

  async function fuzz(): Promise<void> {
    const rand = prng(SEED);
    const int = (n: number) => Math.floor(rand() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
    const server = (raw = new RawServer({ dataDir: tmp.dir }));
    await server.initialize();

    // Baselines from a clean server: the answers every later identical request must get.
    const baseline = async (id: string, method: string, params: Msg): Promise<Msg> => {
      server.send({ jsonrpc: '2.0', id, method, params });
      const r = await server.response(id);
      if (!r.result) throw new Error(`baseline ${method} failed: ${JSON.stringify(r)}`);
      return r.result as Msg;
    };
    const tools = (await baseline('b-tools', 'tools/list', {})).tools as ToolInfo[];
    const toolNames = tools.map((t) => t.name).sort();
    expect(toolNames).toEqual(expect.arrayContaining([...PLAIN_METHODS, 'get_ready_tasks', 'list_nodes']));
    const list = await baseline('b-list', 'workflow_list', {});
    const ids = (list.workflows as Array<{ id: string }>).map((w) => w.id);
    expect(ids).toEqual(expect.arrayContaining(['fix-failing-test', 'implement-feature', 'review-change']));
    const nextArgs = { workflowId: 'fix-failing-test', completedSteps: [] as string[] };
    const next = await baseline('b-next', 'workflow_next', nextArgs);
    expect((next.step as { id: string }).id).toBe('reproduce');
    const next2Args = { workflowId: 'fix-failing-test', completedSteps: ['reproduce'], context: { failureKind: 'deterministic' } };
    const next2 = await baseline('b-next2', 'workflow_next', next2Args);
    expect((next2.step as { id: string }).id).not.toBe('reproduce');
    const validateOk = { workflowId: 'fix-failing-test', stepId: 'reproduce', output: 'the test failed: expected 1' };
    expect((await baseline('b-val', 'workflow_validate', validateOk)).valid).toBe(true);
    const validateBad = { workflowId: 'fix-failing-test', stepId: 'reproduce', output: 'all good' };
    const validateBadResult = await baseline('b-val2', 'workflow_validate', validateBad);
    expect(validateBadResult.valid).toBe(false);
    const listNodesResult = await baseline('b-ln', 'tools/call', { name: 'list_nodes', arguments: { projectContext: '/tmp/fuzz-project' } });
    expect((listNodesResult.structuredContent as Msg).nodes).toEqual([]);

    const ajv = new Ajv({ strict: false });
    const inputValidators = new Map(tools.map((t) => [t.name, ajv.compile(t.inputSchema)]));

    // ---- ids -------------------------------------------------------------------------------------------------
    let counter = 0;
    /** A fresh id of a type the server can answer to (unique across the run). */
    const usableId = (): Id => {
      const n = ++counter;
      switch (int(6)) {
        case 0:
          return n;
        case 1:
          return -n;
        case 2:
          return 1e12 + n;
        case 3:
          return `s${n}`;
        case 4:
          return `ü"\\\u2028${n}`;
        default:
          return `id-${n}-${'x'.repeat(int(40))}`;
      }
    };
    /** Ids the server cannot answer to: the error goes out with id null. */
    const unusableIds: Json[] = [null, true, false, { a: 1 }, [1, 2], []];

    // ---- frame builders --------------------------------------------------------------------------------------
    const frames: Frame[] = [];
    const jsonLine = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');
    const push = (label: string, line: Buffer | string, expect: Expect) =>
      frames.push({ label, line: typeof line === 'string' ? Buffer.from(line, 'utf8') : line, expect });

    const deepEqualCheck = (want: Msg) => (result: Msg) => expect(result).toEqual(want);
    const toolResultCheck = (want: Msg) => (result: Msg) => {
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(want);
      expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual(want);
    };

    const validRequest = (label: string) => {
      const id = usableId();
      switch (int(8)) {
        case 0:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'ping' }), { kind: 'result', id, check: deepEqualCheck({}) });
        case 1:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }), {
            kind: 'result',
            id,
            check: (r) => expect((r.tools as ToolInfo[]).map((t) => t.name).sort()).toEqual(toolNames),
          });
        case 2:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'workflow_list', params: {} }), { kind: 'result', id, check: deepEqualCheck(list) });
        case 3:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'workflow_next', params: nextArgs }), { kind: 'result', id, check: deepEqualCheck(next) });
        case 4:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'workflow_next', arguments: next2Args } }), {
            kind: 'result',
            id,
            check: toolResultCheck(next2),
          });
        case 5:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'workflow_validate', arguments: validateBad } }), {
            kind: 'result',
            id,
            check: toolResultCheck(validateBadResult),
          });
        case 6:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_nodes', arguments: { projectContext: '/tmp/fuzz-project' } } }), {
            kind: 'result',
            id,
            check: (r) => expect(r).toEqual(listNodesResult),
          });
        default:
          return push(label, jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_ready_tasks', arguments: { project: 'no-such-project' } } }), {
            kind: 'toolError',
            id,
            errorCode: 'not_found',
          });
      }
    };

    const randomBytes = () => {
      for (;;) {
        const len = 1 + int(200);
        const buf = Buffer.alloc(len);
        for (let i = 0; i < len; i++) {
          const r = rand();
          // Bias towards the bytes that break parsers: NUL, quotes, braces, lone UTF-8 continuation/lead bytes.
          buf[i] = r < 0.1 ? 0 : r < 0.2 ? pick([0x22, 0x7b, 0x7d, 0x5b, 0x5d, 0x5c, 0x3a, 0x2c]) : r < 0.35 ? 0x80 + int(0x80) : int(256);
          if (buf[i] === 0x0a) buf[i] = 0x0b;
        }
        let text = buf.toString('utf8');
        if (text.endsWith('\r')) text = text.slice(0, -1);
        if (text.trim() === '') continue;
        try {
          JSON.parse(text);
          continue; // valid JSON by chance: not what this category is for
        } catch {
          return push('random bytes', buf, { kind: 'nullError', code: -32700 });
        }
      }
    };

    const sampleRequest = (id: Id): Msg => {
      const name = pick(PLAIN_METHODS);
      return { jsonrpc: '2.0', id, method: name, params: name === 'workflow_next' ? nextArgs : {} };
    };

    const truncated = () => {
      const text = JSON.stringify(sampleRequest(usableId()));
      push('truncated JSON', text.slice(0, 1 + int(text.length - 1)), { kind: 'nullError', code: -32700 });
    };

    const notJsonRpc = () => {
      const id = usableId();
      const options: Array<[unknown, Expect]> = [
        [int(1000), { kind: 'nullError', code: -32600 }],
        ['a string', { kind: 'nullError', code: -32600 }],
        [null, { kind: 'nullError', code: -32600 }],
        [true, { kind: 'nullError', code: -32600 }],
        [[], { kind: 'nullError', code: -32600 }],
        [[sampleRequest(usableId()), sampleRequest(usableId())], { kind: 'nullError', code: -32600 }], // batch
        [{}, { kind: 'nullError', code: -32600 }],
        [{ foo: 'bar' }, { kind: 'nullError', code: -32600 }],
        [{ jsonrpc: '2.0' }, { kind: 'nullError', code: -32600 }],
        [{ id, method: 'ping' }, { kind: 'error', id, code: -32600 }], // no jsonrpc
        [{ jsonrpc: '2.0', id }, { kind: 'error', id, code: -32600 }], // neither request nor response
        [{ jsonrpc: '2.0', id, method: 42 }, { kind: 'error', id, code: -32600 }],
        [{ jsonrpc: '2.0', id, method: '' }, { kind: 'error', id, code: -32600 }],
        [{ jsonrpc: '2.0', id, method: 'ping', params: pick([[1], 'x', 5, null, true]) }, { kind: 'error', id, code: -32600 }],
        // A response or a notification from the client: nothing to answer.
        [{ jsonrpc: '2.0', id: `r${id}`, result: {} }, { kind: 'none' }],
        [{ jsonrpc: '2.0', id: `r${id}`, error: { code: -1, message: 'x' } }, { kind: 'none' }],
        [{ jsonrpc: '2.0', method: pick(['notifications/whatever', 'notifications/progress', 'x/y', 'ping']) }, { kind: 'none' }],
        [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `never-used-${id}` } }, { kind: 'none' }],
      ];
      const [value, expected] = pick(options);
      push('JSON, not JSON-RPC', jsonLine(value), expected);
    };

    const wrongVersion = () => {
      const id = usableId();
      const version = pick(['1.0', '2', 2, 2.0, null, '2.0 ', '', ['2.0'], undefined]);
      const msg: Msg = { ...sampleRequest(id), jsonrpc: version };
      if (version === undefined) delete msg.jsonrpc;
      push('wrong jsonrpc', jsonLine(msg), { kind: 'error', id, code: -32600 });
    };

    const oddIds = () => {
      if (rand() < 0.5) {
        push('unusable id', jsonLine({ jsonrpc: '2.0', id: pick(unusableIds), method: pick(['ping', 'tools/list', 'workflow_list']) }), {
          kind: 'nullError',
          code: -32600,
        });
      } else {
        // Fractional ids are JSON numbers the server can answer to, but MCP ids are integers: -32600 with that id.
        const id = ++counter + 0.25 * (rand() < 0.5 ? 1 : -1);
        push('float id', jsonLine({ jsonrpc: '2.0', id, method: 'ping' }), { kind: 'error', id, code: -32600 });
      }
    };

    const WRONG_VALUES: Json[] = [123, -1.5, 'str', '', true, null, [1, 'a'], { a: 1 }, [], {}];
    /** Arguments that fail the tool's input schema (checked with Ajv here, so the expectation is certain). */
    const wrongArguments = (tool: ToolInfo): Msg => {
      const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown };
      const validate = inputValidators.get(tool.name)!;
      const base = validArgumentsFor(tool.name);
      for (let attempt = 0; attempt < 50; attempt++) {
        const args: Msg = { ...base };
        const props = Object.keys(schema.properties ?? {});
        const r = rand();
        if (r < 0.15 && schema.required?.length) delete args[pick(schema.required)];
        else if (r < 0.25 && schema.additionalProperties === false) args[`unexpected_${int(100)}`] = pick(WRONG_VALUES);
        else if (props.length) args[pick(props)] = pick(WRONG_VALUES);
        else args[`unexpected_${int(100)}`] = 1;
        if (!validate(args)) return args;
      }
      return { [`unexpected_field`]: 1, ...(schema.required ? {} : {}) };
    };

    const wrongToolCall = () => {
      const id = usableId();
      const tool = pick(tools);
      const r = rand();
      if (r < 0.1) {
        // `arguments` that is not an object, or a `name` that is not a string: malformed tools/call params.
        const params = rand() < 0.5 ? { name: tool.name, arguments: pick([[1], 'x', 5, true]) } : { name: pick([5, null, true, {}, []]), arguments: {} };
        return push('tools/call bad params', jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params }), { kind: 'error', id, code: -32602 });
      }
      if (r < 0.15) {
        return push('tools/call unknown tool', jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: `no_such_${int(99)}`, arguments: {} } }), {
          kind: 'error',
          id,
          code: -32602,
        });
      }
      const args = wrongArguments(tool);
      if (!inputValidators.get(tool.name)!(args)) {
        push(`tools/call ${tool.name} wrong args`, jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool.name, arguments: args } }), {
          kind: 'toolError',
          id,
          errorCode: 'invalid_arguments',
        });
      }
    };

    const wrongPlainParams = () => {
      const id = usableId();
      const method = pick(PLAIN_METHODS);
      const tool = tools.find((t) => t.name === method)!;
      const args = wrongArguments(tool);
      if (!inputValidators.get(tool.name)!(args)) {
        push(`plain ${tool.name} wrong params`, jsonLine({ jsonrpc: '2.0', id, method: tool.name, params: args }), { kind: 'error', id, code: -32602 });
      }
    };

    /** The SDK's own methods with params its schemas refuse: -32602 (the SDK alone answered -32603 with a JSON dump). */
    const sdkBadParams = () => {
      const id = usableId();
      const [method, params] = pick<[string, Json]>([
        ['logging/setLevel', { level: pick(['loud', 5, null]) }],
        ['logging/setLevel', {}],
        ['initialize', {}],
        ['initialize', { protocolVersion: 5, capabilities: [], clientInfo: 'me' }],
        ['tools/list', { cursor: pick([5, {}, [], true]) }],
        ['tools/call', {}],
        ['tools/call', { name: 'workflow_list', arguments: {}, _meta: 'x' }],
      ]);
      // `_meta` belongs to the MCP request envelope: a non-object one makes the frame an invalid request (-32600).
      const code = (params as { _meta?: unknown })._meta !== undefined ? -32600 : -32602;
      push(`${method} bad params`, jsonLine({ jsonrpc: '2.0', id, method, params }), { kind: 'error', id, code });
    };

    const unknownMethod = () => {
      const id = usableId();
      // (resources/* and prompts/* are served since sessions made workflows prompts and sessions resources.)
      const method = pick(['completion/complete', 'sampling/createMessage', 'no/such', 'workflow_nope', 'tools/run', 'WORKFLOW_LIST', '\u0000', 'initialized']);
      push('unknown method', jsonLine({ jsonrpc: '2.0', id, method, params: {} }), { kind: 'error', id, code: -32601 });
    };

    const deepNesting = () => {
      const id = usableId();
      if (rand() < 0.5) {
        const depth = 257 + int(50_000);
        const open = rand() < 0.5 ? '[' : '{"a":';
        const close = open === '[' ? ']' : '}';
        push('deep nesting', `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping","params":{"x":${open.repeat(depth)}1${close.repeat(depth)}}}`, {
          kind: 'error',
          id,
          code: -32600,
        });
      } else {
        // Deep but within the limit: a valid request, answered as usual (the context comes back unchanged).
        let ctx: Json = 'leaf';
        for (let i = 0; i < 200; i++) ctx = { n: ctx };
        const context = { ...next2Args.context, deep: ctx };
        push('nested within limit', jsonLine({ jsonrpc: '2.0', id, method: 'workflow_next', params: { ...next2Args, context } }), {
          kind: 'result',
          id,
          check: (r) => {
            expect(r.step).toEqual(next2.step);
            expect((r.context as Msg).deep).toEqual(ctx);
          },
        });
      }
    };

    // ---- generate --------------------------------------------------------------------------------------------
    const generators: Array<[number, () => void]> = [
      [15, randomBytes],
      [10, truncated],
      [12, notJsonRpc],
      [8, wrongVersion],
      [8, oddIds],
      [20, wrongToolCall],
      [8, wrongPlainParams],
      [5, unknownMethod],
      [4, sdkBadParams],
      [2, deepNesting],
      [12, () => validRequest('valid')],
    ];
    const totalWeight = generators.reduce((s, [w]) => s + w, 0);
    while (frames.length < FUZZ_FRAMES) {
      let r = rand() * totalWeight;
      for (const [w, gen] of generators) {
        if ((r -= w) < 0) {
          gen();
          break;
        }
      }
    }
    // A few ~10 MB lines at random places: garbage, a plain method with a padded (unknown) param, and real work.
    const big: Frame[] = [];
    big.push({ label: '10 MB garbage', line: Buffer.alloc(TEN_MB, 0x41), expect: { kind: 'nullError', code: -32700 } });
    {
      const id = usableId();
      big.push({
        label: '10 MB unknown param',
        line: jsonLine({ jsonrpc: '2.0', id, method: 'workflow_list', params: { pad: 'p'.repeat(TEN_MB) } }),
        expect: { kind: 'error', id, code: -32602 },
      });
    }
    {
      const id = usableId();
      big.push({
        label: '10 MB workflow_validate',
        line: jsonLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'workflow_validate', arguments: { ...validateOk, output: 'x '.repeat(TEN_MB / 2) + 'failed' } } }),
        expect: { kind: 'result', id, check: (r) => expect(r.structuredContent).toEqual({ valid: true, issues: [], suggestions: [] }) },
      });
    }
    for (const f of big) frames.splice(int(frames.length), 0, f);

    // ---- write, paced: a synchronising ping every BATCH frames, respecting the pipe's backpressure -----------
    const stdin = server.child.stdin;
    const write = (buf: Buffer) =>
      new Promise<void>((resolve, reject) => {
        const ok = stdin.write(Buffer.concat([buf, Buffer.from('\n')]), (err) => (err ? reject(err) : undefined));
        if (ok) resolve();
        else stdin.once('drain', resolve);
      });
    let syncs = 0;
    for (let i = 0; i < frames.length; i++) {
      await write(frames[i].line);
      if ((i + 1) % BATCH === 0 || i === frames.length - 1) {
        const id = `sync-${++syncs}`;
        await write(jsonLine({ jsonrpc: '2.0', id, method: 'ping' }));
        await server.response(id, 60_000);
        expect(server.child.exitCode).toBeNull();
      }
    }
    const written = frames.length + syncs;
    // A ping is answered at once; a tool call of the last batch may still be running when the last ping's answer
    // arrives: wait (a liveness bound) until every frame that expects an answer has one.
    const awaited = frames.flatMap((f) => (f.expect.kind === 'error' || f.expect.kind === 'result' ? [JSON.stringify(f.expect.id)] : []));
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const answered = new Set<string>();
      for (const line of server.lines) {
        let m: Msg | undefined;
        try {
          m = JSON.parse(line) as Msg;
        } catch {
          continue; // the check below reports a line that is not JSON
        }
        if ('id' in m && ('result' in m || 'error' in m)) answered.add(JSON.stringify(m.id));
      }
      if (awaited.every((k) => answered.has(k))) break;
    }

    // ---- check ----------------------------------------------------------------------------------------------
    expect(server.child.exitCode).toBeNull();
    const byId = new Map<string, Msg[]>();
    const nullErrors: number[] = [];
    for (const line of server.lines) {
      let m: Msg;
      try {
        m = JSON.parse(line) as Msg;
      } catch {
        throw new Error(`stdout line is not JSON: ${line.slice(0, 200)}`);
      }
      expect(m.jsonrpc).toBe('2.0');
      const isResponse = 'id' in m && ('result' in m) !== ('error' in m);
      const isNotification = typeof m.method === 'string' && !('id' in m);
      if (!isResponse && !isNotification) throw new Error(`stdout line is not a JSON-RPC 2.0 message: ${line.slice(0, 200)}`);
      if (!isResponse) continue;
      if ('error' in m) expect((m.error as { message: string }).message).not.toMatch(/[\r\n]/); // one-line messages
      if (m.id === null) {
        expect('error' in m).toBe(true);
        nullErrors.push((m.error as { code: number }).code);
        continue;
      }
      const key = JSON.stringify(m.id);
      byId.set(key, [...(byId.get(key) ?? []), m]);
    }

    // Errors without a usable id are written in frame order, so their codes must match the expected sequence.
    const expectedNull = frames.flatMap((f) => (f.expect.kind === 'nullError' ? [f.expect.code] : []));
    expect(nullErrors).toEqual(expectedNull);

    const expectedIds = new Set<string>();
    let checkedValid = 0;
    for (const f of frames) {
      const e = f.expect;
      if (e.kind === 'none' || e.kind === 'nullError') continue;
      const key = JSON.stringify(e.id);
      expectedIds.add(key);
      const answers = byId.get(key) ?? [];
      const where = `${f.label} id ${key}: ${f.line.subarray(0, 300).toString('utf8')} → ${JSON.stringify(answers).slice(0, 500)}`;
      if (answers.length !== 1) throw new Error(`expected exactly one response, got ${answers.length}: ${where}`);
      const a = answers[0];
      try {
        if (e.kind === 'error') {
          expect(a.error).toBeDefined();
          expect((a.error as { code: number }).code).toBe(e.code);
        } else if (e.kind === 'toolError') {
          expect(a.result).toBeDefined();
          const r = a.result as Msg;
          expect(r.isError).toBe(true);
          expect(r.structuredContent).toBeUndefined();
          expect((r._meta as Msg)['workgraph/errorCode']).toBe(e.errorCode);
          expect((r.content as Array<{ text: string }>)[0].text.startsWith(`${e.errorCode}: `)).toBe(true);
        } else {
          expect(a.result).toBeDefined();
          e.check(a.result as Msg);
          checkedValid++;
        }
      } catch (err) {
        (err as Error).message = `${where}\n${(err as Error).message}`;
        throw err;
      }
    }
    for (const key of byId.keys()) {
      if (!expectedIds.has(key) && !key.startsWith('"sync-') && !key.startsWith('"b-') && key !== '"init"') {
        throw new Error(`response to an id never sent as a request: ${key}`);
      }
    }
    expect(syncs).toBeGreaterThan(0);
    expect(checkedValid).toBeGreaterThan(500);
    expect(server.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace

    // Still serving after all of it, then a clean exit on end of input.
    server.send({ jsonrpc: '2.0', id: 'last', method: 'workflow_list', params: {} });
    expect((await server.response('last')).result).toEqual(list);
    server.child.stdin.end();
    const { code } = await server.exited;
    expect(code).toBe(0);
    // eslint-disable-next-line no-console
    console.info(`fuzz seed ${SEED}: ${written} frames written (${frames.length} generated, ${syncs} sync pings), ${checkedValid} valid answers checked, ${nullErrors.length} id-null errors`);
  }
});

/** Arguments that pass each tool's input schema, as a base to break one field of. */
function validArgumentsFor(name: string): Msg {
  switch (name) {
    case 'workflow_get':
      return { id: 'fix-failing-test' };
    case 'workflow_next':
      return { workflowId: 'fix-failing-test', completedSteps: [] };
    case 'workflow_validate':
      return { workflowId: 'fix-failing-test', stepId: 'reproduce', output: 'x' };
    case 'workflow_validate_json':
      return { workflowJson: '{}' };
    case 'init_project_graph':
      return { projectName: 'fuzz', projectRoot: '/nonexistent-fuzz-root', nodes: [{ id: 'a', title: 'A' }] };
    case 'get_ready_tasks':
    case 'get_project_graph':
      return { project: 'fuzz' };
    case 'start_task':
    case 'validate_task_loop':
    case 'reset_task_node':
      return { project: 'fuzz', nodeId: 'a' };
    case 'scaffold_project_docs':
      return { targetDirectory: '/nonexistent-fuzz-dir', architectureContent: 'a', phaseTasks: [], testCasesContent: 't' };
    case 'add_nodes':
      return { projectContext: '/tmp/fuzz-project', nodes: [{ thought: 't', role: 'actor' }] };
    case 'list_nodes':
      return { projectContext: '/tmp/fuzz-project' };
    case 'get_node':
      return { projectContext: '/tmp/fuzz-project', id: 'n1' };
    case 'delete_nodes':
    case 'restore_nodes':
      return { projectContext: '/tmp/fuzz-project', nodeIds: ['n1'] };
    default:
      return {};
  }
}
