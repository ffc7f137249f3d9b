import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger, type Logger } from '../../../../src/kernel/logger';
import { noopCallContext, type CallContext } from '../../../../src/kernel/call-context';
import type { Sampler } from '../../../../src/kernel/sampler';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStoreOptions } from '../../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { RandomIdGenerator } from '../../../../src/kernel/random-id-generator';
import { AddNodes } from '../../../../src/modules/knowledge/application/use-cases/add-nodes';
import { ListNodes } from '../../../../src/modules/knowledge/application/use-cases/list-nodes';
import { GetNode } from '../../../../src/modules/knowledge/application/use-cases/get-node';
import { DeleteNodes } from '../../../../src/modules/knowledge/application/use-cases/delete-nodes';
import { RestoreNodes } from '../../../../src/modules/knowledge/application/use-cases/restore-nodes';

/** A clock tests move by hand. Starts at 2025-03-01T12:00:00Z. */
export class ManualClock {
  constructor(public ms = Date.UTC(2025, 2, 1, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A logger that keeps its entries, to check what was logged. */
export class RecordingLogger implements Logger {
  readonly entries: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  debug(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'error', msg, fields });
  }
  child(): Logger {
    return this;
  }
}

export interface KnowledgeEnv {
  dataDir: string;
  clock: ManualClock;
  logger: RecordingLogger;
  store: ReturnType<typeof createNdjsonKnowledgeStore>;
  add: AddNodes;
  list: ListNodes;
  get: GetNode;
  del: DeleteNodes;
  restore: RestoreNodes;
  projectDir(project: string): string;
  readLines(project: string, file?: string): Promise<string[]>;
  cleanup(): Promise<void>;
}

export async function makeKnowledgeEnv(options: NdjsonKnowledgeStoreOptions = {}, dataDir?: string): Promise<KnowledgeEnv> {
  const dir = dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'wg-knowledge-')));
  const clock = new ManualClock();
  const logger = new RecordingLogger();
  const store = createNdjsonKnowledgeStore(dir, { clock, ...options });
  const projectDir = (p: string) => path.join(dir, 'projects', p);
  return {
    dataDir: dir,
    clock,
    logger,
    store,
    add: new AddNodes(store, new RandomIdGenerator(), clock, logger),
    list: new ListNodes(store),
    get: new GetNode(store),
    del: new DeleteNodes(store, clock, logger),
    restore: new RestoreNodes(store, logger),
    projectDir,
    async readLines(project, file = 'knowledge_graph.ndjson') {
      try {
        const text = await fs.readFile(path.join(projectDir(project), file), 'utf8');
        return text.split('\n').filter((l) => l !== '');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
}

/** A real Sampler: answers with a fixed text built from the prompt, and records the requests it saw. */
export class EchoSampler implements Sampler {
  readonly requests: { systemPrompt?: string; prompt: string; maxTokens: number }[] = [];
  constructor(private readonly answer: (prompt: string) => string) {}
  async complete(request: { systemPrompt?: string; prompt: string; maxTokens: number }): Promise<string> {
    this.requests.push(request);
    await new Promise((r) => setTimeout(r, 5));
    return this.answer(request.prompt);
  }
}

export function ctxWithSampler(sampler?: Sampler): CallContext {
  return { ...noopCallContext(), sampler };
}

export { silentLogger };
