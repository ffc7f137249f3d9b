import { spawn } from 'node:child_process';
import { CommandFailedError } from '../../../../kernel/errors';
import {
  DEFAULT_OUTPUT_CAP_BYTES,
  type CommandRequest,
  type CommandResult,
  type CommandRunner,
} from '../../../../kernel/command-runner';
import { COMMAND_MARKER_VAR, RunningCommands, killProcessTree, newCommandMarker } from './running-commands';
import { TailBuffer, lastLineOf } from './tail-buffer';

export interface ShellCommandRunnerOptions {
  /** Time between SIGTERM and SIGKILL when a run is timed out or cancelled. Default 2,000 ms. */
  killGraceMs?: number;
  /** How long to wait for the output pipes to close after the shell exits. Default 500 ms. */
  closeGraceMs?: number;
}

/**
 * Runs a command line through the shell (`/bin/sh -c`) in `cwd`, with the server's own environment (`process.env`)
 * plus one marker variable (WORKGRAPH_COMMAND_ID), stdin closed and stdout/stderr captured with a cap per stream (the
 * tail kept).
 *
 * The shell is spawned `detached`, so it leads a new process group: on timeout or cancellation the whole tree — the
 * group and, on Linux, every process carrying the marker (children that called `setsid`) — gets SIGTERM, then SIGKILL
 * after `killGraceMs`. When the shell exits, whatever it left running (background jobs) is killed too, so a
 * validation command never leaves processes behind.
 */
export class ShellCommandRunner implements CommandRunner {
  private readonly killGraceMs: number;
  private readonly closeGraceMs: number;

  constructor(readonly running: RunningCommands = new RunningCommands(), opts: ShellCommandRunnerOptions = {}) {
    this.killGraceMs = opts.killGraceMs ?? 2_000;
    this.closeGraceMs = opts.closeGraceMs ?? 500;
  }

  /** Kills every running command's process tree (server shutdown). */
  killAll(): void {
    this.running.killAll('SIGKILL');
  }

  run(req: CommandRequest): Promise<CommandResult> {
    const started = Date.now();
    const cap = req.maxOutputBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
    if (req.signal?.aborted) {
      return Promise.resolve({
        exitCode: null, signal: null, durationMs: 0, stdout: '', stderr: '', truncated: false, timedOut: false, cancelled: true,
      });
    }
    return new Promise<CommandResult>((resolve, reject) => {
      let child;
      const marker = req.marker ?? newCommandMarker();
      try {
        child = spawn(req.command, {
          cwd: req.cwd,
          shell: true,
          detached: true,
          // The marker finds the command's processes that leave its group (setsid, background jobs) at kill time.
          env: { ...process.env, [COMMAND_MARKER_VAR]: marker },
          stdio: ['ignore', 'pipe', 'pipe'],
          windowsHide: true,
        });
      } catch (e) {
        reject(new CommandFailedError(`cannot start command in ${req.cwd}: ${(e as Error).message}`, { cwd: req.cwd }));
        return;
      }
      const proc = child;
      const cmd = { child: proc, marker };
      this.running.add(proc, marker);
      if (proc.pid !== undefined) req.onStarted?.(proc.pid);
      const out = new TailBuffer(cap);
      const err = new TailBuffer(cap);
      let timedOut = false;
      let cancelled = false;
      let exitCode: number | null = null;
      let exitSignal: string | null = null;
      let settled = false;
      const timers: NodeJS.Timeout[] = [];

      const onData = (buf: TailBuffer) => (chunk: Buffer) => {
        buf.push(chunk);
        if (req.onOutput) {
          const line = lastLineOf(chunk.toString('utf8'));
          if (line) req.onOutput(line);
        }
      };
      proc.stdout!.on('data', onData(out));
      proc.stderr!.on('data', onData(err));

      const stop = (reason: 'timeout' | 'cancel') => {
        if (settled || exitCode !== null || exitSignal !== null) return;
        if (reason === 'timeout') timedOut = true;
        else cancelled = true;
        killProcessTree(cmd, 'SIGTERM');
        const t = setTimeout(() => killProcessTree(cmd, 'SIGKILL'), this.killGraceMs);
        t.unref();
        timers.push(t);
      };
      const onAbort = () => stop('cancel');
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const timeout = setTimeout(() => stop('timeout'), req.timeoutMs);
      timers.push(timeout);

      const finish = () => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        req.signal?.removeEventListener('abort', onAbort);
        this.running.delete(proc);
        proc.stdout?.destroy();
        proc.stderr?.destroy();
        resolve({
          exitCode,
          signal: exitSignal,
          durationMs: Date.now() - started,
          stdout: out.text(),
          stderr: err.text(),
          truncated: out.truncated || err.truncated,
          timedOut,
          cancelled,
        });
      };

      proc.on('error', (e) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        req.signal?.removeEventListener('abort', onAbort);
        this.running.delete(proc);
        reject(new CommandFailedError(`cannot start command in ${req.cwd}: ${e.message}`, { cwd: req.cwd }));
      });
      proc.on('exit', (code, sig) => {
        exitCode = code;
        exitSignal = sig;
        // Background jobs the command left in its group would keep the pipes open (and outlive the run): end them.
        killProcessTree(cmd, 'SIGKILL');
        const t = setTimeout(finish, this.closeGraceMs);
        t.unref();
        timers.push(t);
      });
      proc.on('close', finish);
    });
  }
}
