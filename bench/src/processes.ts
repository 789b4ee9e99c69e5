import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import getPort from 'get-port';

/** A free TCP port on loopback, not handed out again by this process for a while. */
export const freePort = (): Promise<number> => getPort({ host: '127.0.0.1' });

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every child still running; killed when the harness exits, however it exits. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  baseUrl: string;
  /** Milliseconds from spawn until `/healthz` answered 200. */
  startMs: number;
  /** The end of what the process wrote to stderr (stdout is discarded, as in production). */
  stderr(): string;
  /** Set once the process has exited. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** SIGTERM, then SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

export interface SpawnOptions {
  name: string;
  args: string[];
  cwd: string;
  /** The whole environment of the child: nothing of the harness's leaks in. */
  env: Record<string, string>;
  port: number;
  timeoutMs?: number;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Spawns a server with this process's Node, and resolves once its `/healthz` answers 200. */
export async function startServer(options: SpawnOptions): Promise<ServerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-10_000);
  });
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      children.delete(child);
      resolve();
    });
  });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const deadline = started + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (await healthy(`${baseUrl}/healthz`)) break;
    if (exited) {
      throw new Error(
        `${options.name} exited during start-up (${exited.code ?? exited.signal}):\n${stderr}`,
      );
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not answer /healthz in time:\n${stderr}`);
    }
    await sleep(5);
  }
  const startMs = performance.now() - started;
  const { pid } = child;
  // Someone answered, but not a process of ours: another server holds the port.
  if (pid === undefined) throw new Error(`${options.name} was never spawned:\n${stderr}`);
  return {
    name: options.name,
    pid,
    port: options.port,
    baseUrl,
    startMs,
    stderr: () => stderr,
    exit: () => exited,
    async stop(timeoutMs = 10_000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
}

/** The resident set size of a process in bytes (`VmRSS`), or undefined once it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second, the unit of the CPU times in `/proc/<pid>/stat` (almost always 100). */
const clockTicks = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

interface ProcessStat {
  name: string;
  parent: number;
  /** CPU time used, user and system, every thread, µs. */
  cpuUs: number;
  /** CPU time used by its children that have exited and been waited for, µs. */
  exitedChildrenUs: number;
}

function statOf(pid: number): ProcessStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields follow the last one.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const us = (...indexes: number[]) =>
      (indexes.reduce((sum, i) => sum + Number(fields[i]), 0) * 1_000_000) / clockTicks;
    return {
      name: stat.slice(stat.indexOf('(') + 1, close),
      parent: Number(fields[1]),
      cpuUs: us(11, 12),
      exitedChildrenUs: us(13, 14),
    };
  } catch {
    return undefined; // gone
  }
}

/** The CPU time a process has used so far, in microseconds; undefined once it is gone. */
export function cpuTimeOf(pid: number): number | undefined {
  return statOf(pid)?.cpuUs;
}

/**
 * The CPU time used so far by PostgreSQL on this machine, in microseconds: every `postgres`
 * process's, plus what the exited ones used (their parent's count of its waited-for children), so
 * that a backend or autovacuum worker ending takes nothing away. Undefined when there is no
 * PostgreSQL here (a database on another machine).
 */
export function postgresCpuTime(): number | undefined {
  const processes = new Map<number, ProcessStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat?.name === 'postgres') processes.set(Number(entry), stat);
  }
  if (processes.size === 0) return undefined;
  let total = 0;
  for (const stat of processes.values()) {
    total += stat.cpuUs;
    // The postmaster (its parent is not PostgreSQL) holds the time of its exited children.
    if (!processes.has(stat.parent)) total += stat.exitedChildrenUs;
  }
  return total;
}

/** Samples the RSS of `pids` every `intervalMs` until stopped; returns the peak of each. */
export function sampleRss(pids: readonly number[], intervalMs = 100): () => Map<number, number> {
  const peaks = new Map<number, number>();
  const sample = () => {
    for (const pid of pids) {
      const rss = rssOf(pid);
      if (rss !== undefined && rss > (peaks.get(pid) ?? 0)) peaks.set(pid, rss);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

/** Runs a command to completion; resolves with its stdout, rejects with its stderr. */
export function run(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve(stdout);
      else reject(new Error(`node ${args.join(' ')} failed (${code ?? signal}):\n${stderr}`));
    });
  });
}
