import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A server started as a real process, as a person starts it: what it writes, when it ends. */

export interface ServerRun {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `command` with its stdout and stderr piped and kept. */
export function spawnServer(
  command: string,
  args: string[],
  options: Omit<SpawnOptions, 'stdio'>,
): ServerRun {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Waits until the server answers `/healthz` on `port`; fails with its output if it exits first. */
export async function untilServing(run: ServerRun, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (run.child.exitCode !== null) throw new Error(`the server exited:\n${run.output()}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    if (Date.now() > deadline) {
      throw new Error(`the server did not answer in time:\n${run.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The pids of the PostgreSQL servers (postmasters) running on `dataDir`, from /proc. */
export function postgresOn(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.indexOf('-D');
    if (argv[0]?.endsWith('/postgres') && at >= 0 && argv[at + 1] === dataDir) {
      pids.push(Number(entry));
    }
  }
  return pids;
}
