import { setImmediate as nextTurn } from 'node:timers/promises';
import { FlushJob } from '../../../../src/modules/knowledge/infrastructure/search-index/flush-job';

/**
 * A flush in the background does its work only beside the operations it is lent (an add's fsync) and when it is
 * finished: parked otherwise, so its CPU lands in nothing else (another caller, another store's add).
 */
describe('search index flush job', () => {
  /** Work of `steps` steps, each a little busy wait, counting the steps done. */
  const counted = (steps: number) => {
    const done = { steps: 0 };
    const job = new FlushJob(async (pause) => {
      for (let i = 0; i < steps; i++) {
        const until = performance.now() + 0.05;
        while (performance.now() < until);
        done.steps++;
        const p = pause();
        if (p) await p;
      }
      return 'written';
    });
    return { job, done };
  };
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await nextTurn();
  };

  it('does nothing until lent an operation, runs while it runs, parks once it has settled', async () => {
    const { job, done } = counted(100_000);
    await turns(20);
    expect(done.steps).toBe(0);
    let settle!: () => void;
    const op = new Promise<void>((r) => (settle = r));
    const window = job.runWhile(op);
    await turns(20);
    const during = done.steps;
    expect(during).toBeGreaterThan(0);
    settle();
    await window;
    const after = done.steps;
    await turns(20);
    expect(done.steps).toBe(after);
    expect(job.settled).toBe(false);
    // A failed operation ends the window too.
    const w2 = job.runWhile(Promise.reject(new Error('fsync failed')));
    await w2;
    await turns(5);
    const parked = done.steps;
    await turns(20);
    expect(done.steps).toBe(parked);
  });

  it('finish runs the rest without pausing and answers the result; a window after it returns at once', async () => {
    const { job, done } = counted(300);
    await job.runWhile(new Promise<void>((r) => setTimeout(r, 2)));
    expect(done.steps).toBeLessThan(300);
    await expect(job.finish()).resolves.toBe('written');
    expect(done.steps).toBe(300);
    expect(job.settled).toBe(true);
    await job.runWhile(new Promise(() => undefined));
  });

  it('a job ending inside a window ends the window and settles', async () => {
    const { job, done } = counted(3);
    await job.runWhile(new Promise(() => undefined)); // an operation that never settles: the job's end ends the window
    expect(done.steps).toBe(3);
    expect(job.settled).toBe(true);
    await expect(job.finish()).resolves.toBe('written');
  });

  it('an error of the work settles the job, rejects finish and never the window', async () => {
    const job = new FlushJob<string>(async () => {
      throw new Error('damaged segment');
    });
    await job.runWhile(new Promise(() => undefined));
    expect(job.settled).toBe(true);
    await expect(job.finish()).rejects.toThrow('damaged segment');
  });
});
