/**
 * The benchmark's settings: a full run by default, `--smoke` for a short one (CI), and environment
 * variables to override single values. The only file that reads the environment.
 */
export interface BenchConfig {
  smoke: boolean;
  /** The PostgreSQL server to create the benchmark database on; an embedded one when unset. */
  serverUrl: string | undefined;
  /** Seconds each server is loaded per case, split over `rounds`. */
  durationS: number;
  /** Alternating rounds per case (ours, limit, then limit, ours, …). */
  rounds: number;
  /** Seconds of load per server and route before anything is measured. */
  warmupS: number;
  connections: number[];
  organisations: number;
  eventsPerOrganisation: number;
  /** Events of the one organisation the SDK iterates over. */
  iterateItems: number;
  /** Sequential calls of each kind (SDK and raw fetch) for the per-call overhead. */
  sdkCalls: number;
  coldStarts: number;
  /** Scans of each kind (in batches of 100, and one to a request) per round of the batch case. */
  batchScans: number;
  /** Scans of the door session (`door.scan`), one every 10 ms. */
  doorScans: number;
  /** Request log records seeded for the Logs page case, over 14 days. */
  logRecords: number;
  /** Tickets of one organisation seeded for the export case, and exported. */
  exportTickets: number;
  /** Pool size of both servers (the API's `DB_POOL_MAX` default). */
  poolMax: number;
  resultsFile: string;
  /** A directory for a V8 CPU profile of the API server (`--cpu-prof`); slows it down. */
  cpuProfileDir: string | undefined;
}

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, got '${raw}'`);
  }
  return value;
};

const USAGE = 'usage: pnpm bench [--smoke]';

export function loadConfig(argv: readonly string[] = process.argv.slice(2)): BenchConfig {
  for (const arg of argv) {
    if (arg !== '--smoke') throw new Error(`unknown argument '${arg}'\n${USAGE}`);
  }
  const smoke = argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
  const connections = (process.env.BENCH_CONNECTIONS ?? '1,16,64')
    .split(',')
    .map((part) => Number(part.trim()));
  if (connections.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error('BENCH_CONNECTIONS must be a comma-separated list of positive integers');
  }
  return {
    smoke,
    serverUrl: process.env.DATABASE_URL || undefined,
    durationS: positive('BENCH_DURATION', smoke ? 2 : 10),
    rounds: Math.round(positive('BENCH_ROUNDS', 2)),
    warmupS: positive('BENCH_WARMUP', smoke ? 1 : 3),
    connections,
    organisations: 100,
    eventsPerOrganisation: 100,
    iterateItems: Math.round(positive('BENCH_ITERATE_ITEMS', smoke ? 20_000 : 100_000)),
    sdkCalls: Math.round(positive('BENCH_SDK_CALLS', smoke ? 300 : 2_000)),
    coldStarts: Math.round(positive('BENCH_COLD_STARTS', smoke ? 3 : 5)),
    batchScans: Math.round(positive('BENCH_BATCH_SCANS', smoke ? 1_000 : 4_000)),
    doorScans: Math.round(positive('BENCH_DOOR_SCANS', smoke ? 200 : 2_000)),
    logRecords: Math.round(positive('BENCH_LOG_RECORDS', smoke ? 200_000 : 5_000_000)),
    exportTickets: Math.round(positive('BENCH_EXPORT_TICKETS', smoke ? 20_000 : 1_000_000)),
    poolMax: Math.round(positive('DB_POOL_MAX', 10)),
    resultsFile: process.env.BENCH_RESULTS ?? 'results/latest.json',
    cpuProfileDir: process.env.BENCH_CPU_PROF || undefined,
  };
}

export interface BareServerConfig {
  port: number;
  host: string;
  databaseUrl: string;
  poolMax: number;
}

/** The bare server's settings, named like the API's own variables. */
export function loadBareServerConfig(): BareServerConfig {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  return {
    port: Math.round(positive('PORT', 3001)),
    host: process.env.HOST || '127.0.0.1',
    databaseUrl,
    poolMax: Math.round(positive('DB_POOL_MAX', 10)),
  };
}

/** What every child process gets from the harness's environment: nothing but the basics. */
export function baseChildEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
