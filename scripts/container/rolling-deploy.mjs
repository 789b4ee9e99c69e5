// A rolling deploy under load: two API containers behind nginx (deploy/nginx.conf, with the
// replicas' addresses and its port filled in), a steady stream of reads and check-ins through
// nginx, then each replica in turn replaced (SIGTERM and wait, start the image again, wait until
// it is ready and nginx sends it requests). Passes with no failed request, and every check-in
// answered 201 found in the database, with no check-in written that was not answered.
// Started by rolling-deploy.sh; on its own:
//
//   node scripts/container/rolling-deploy.mjs  (BOXOFFICE_IMAGE, DATABASE_URL, REDIS_URL)
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  freePort,
  image,
  imageCli,
  podman,
  psql,
  redisUrl,
  runDatabase,
  sleep,
  timedLog,
} from './lib.mjs';

const root = resolve(import.meta.dirname, '../..');
/** Concurrent clients: readers, and door scanners (each checks its own ticket in and out). */
const READERS = Number(process.env.ROLLING_READERS ?? 4);
const SCANNERS = Number(process.env.ROLLING_SCANNERS ?? 4);
/** Steady load before the first replacement and after the last one, in ms. */
const STEADY_MS = Number(process.env.ROLLING_STEADY_MS ?? 5000);
/** Then kill one replica with SIGKILL under the same load (ROLLING_CRASH=0 leaves it out). */
const CRASH = process.env.ROLLING_CRASH !== '0';

const { log } = timedLog('rolling');

const database = runDatabase('boxoffice_rolling');
const { name, url: databaseUrl } = database;
const env = (values) => Object.entries(values).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
const runFlags = [
  '--network=host',
  '--read-only',
  '--read-only-tmpfs=false',
  ...env({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    // Both replicas read what the other stored: one key for the run.
    SECRETS_ENCRYPTION_KEYS: `rolling:${randomBytes(32).toString('hex')}`,
  }),
];
const cli = imageCli(runFlags);

const replicas = [1, 2].map((n) => ({ n, container: `${name.replaceAll('_', '-')}-api-${n}` }));
let nginx;
let workDir;

/** Starts replica `r` from the image and waits for its /readyz. */
async function startReplica(r) {
  await podman(
    'run',
    '--detach',
    '--name',
    r.container,
    ...runFlags,
    ...env({
      PORT: r.port,
      HOST: '127.0.0.1',
      TRUST_PROXY: '1',
      SHUTDOWN_GRACE_MS: '10000',
      // The load is one key's: its limits are not what this measures.
      RATE_LIMIT_READS_PER_MINUTE: '1000000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
    }),
    image,
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${r.port}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      throw new Error(`replica ${r.n} not ready:\n${await podman('logs', r.container)}`);
    }
    await sleep(100);
  }
}

/** nginx's access log, one JSON object a line (a file: nginx cannot open a socket as /dev/stdout). */
async function accessLog() {
  const text = await readFile(join(workDir, 'access.log'), 'utf8').catch(() => '');
  // nginx may be in the middle of writing a line as this reads: only whole lines count.
  const lines = text.split('\n');
  lines.pop();
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
}

async function startNginx(port) {
  workDir = await mkdtemp(join(tmpdir(), 'boxoffice-rolling-'));
  const template = await readFile(join(root, 'deploy/nginx.conf'), 'utf8');
  const config = template
    .replace('server api-1:3000', `server 127.0.0.1:${replicas[0].port}`)
    .replace('server api-2:3000', `server 127.0.0.1:${replicas[1].port}`)
    .replace('listen 80;', `listen 127.0.0.1:${port};`)
    .replace('access_log /dev/stdout', `access_log ${workDir}/access.log`)
    .replace('error_log /dev/stderr', `error_log ${workDir}/error.log`);
  if (!config.includes(`127.0.0.1:${replicas[1].port}`) || !config.includes(`:${port};`)) {
    throw new Error('deploy/nginx.conf no longer has the upstreams and listen line expected');
  }
  await writeFile(join(workDir, 'nginx.conf'), config);
  nginx = spawn(
    'nginx',
    [
      '-p',
      workDir,
      '-c',
      join(workDir, 'nginx.conf'),
      '-g',
      `daemon off; pid ${workDir}/nginx.pid;`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  nginx.stderr.on('data', (chunk) => (errors += chunk.toString()));
  const deadline = Date.now() + 10_000;
  while (
    !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (nginx.exitCode !== null || Date.now() > deadline) {
      throw new Error(`nginx: ${errors}${await nginxErrors()}`);
    }
    await sleep(100);
  }
}

const nginxErrors = () => readFile(join(workDir, 'error.log'), 'utf8').catch(() => '');

/** Every request's outcome. */
const outcomes = [];
const checkinIds = [];
let loadRunning = true;

async function request(kind, url, init, expected) {
  const at = Date.now();
  try {
    let response = await fetch(url, init);
    // A write whose first attempt died with its replica may still hold its Idempotency-Key for a
    // moment: the API says so with a 409 `idempotency_in_flight`, and a client (the SDK too) sends
    // the same request again shortly. It then gets the original answer, or the write applied once.
    for (let retry = 0; response.status === 409 && retry < 10; retry += 1) {
      const answer = await response
        .clone()
        .json()
        .catch(() => ({}));
      if (answer.code !== 'idempotency_in_flight') break;
      await sleep(1000);
      response = await fetch(url, init);
    }
    const body = await response.text();
    const ok = response.status === expected;
    const id = response.headers.get('x-request-id');
    outcomes.push({ kind, at, status: response.status, ok, id, body: ok ? undefined : body });
    return ok ? JSON.parse(body) : undefined;
  } catch (error) {
    outcomes.push({ kind, at, status: 0, ok: false, body: String(error.cause ?? error) });
    return undefined;
  }
}

async function reader(base, key, tickets, i) {
  const headers = { authorization: `Bearer ${key}` };
  for (let n = i; loadRunning; n += 1) {
    const url =
      n % 2 === 0
        ? `${base}/api/v1/events?limit=5`
        : `${base}/api/v1/tickets/${tickets[n % tickets.length].id}`;
    await request('read', url, { headers }, 200);
  }
}

/** A door scanning one ticket in, then out, again and again; each scan a POST with its own key. */
async function scanner(base, key, ticket, eventId) {
  for (let n = 0; loadRunning; n += 1) {
    const direction = n % 2 === 0 ? 'entry' : 'exit';
    const checkin = await request(
      'checkin',
      `${base}/api/v1/checkins`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ code: ticket.code, event_id: eventId, direction, gate: 'Main' }),
      },
      201,
    );
    if (!checkin) return; // The ticket's state is unknown now: a failure, counted above.
    checkinIds.push(checkin.data.id);
  }
}

/**
 * Waits until nginx has sent requests to replica `r` since `since`, and they were answered. The
 * log's times are whole seconds and the new replica listens on its predecessor's port: only a line
 * from a second that began at `since` or later is surely the new replica's, not the old one's last
 * answers (a replica can stop and be ready again within one second).
 */
async function waitForTraffic(r, since) {
  const address = `127.0.0.1:${r.port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const served = (await accessLog()).some(
      (entry) =>
        Date.parse(entry.time) >= since && entry.upstream === address && entry.status < 500,
    );
    if (served) return;
    if (Date.now() > deadline) throw new Error(`nginx sent nothing to replica ${r.n}`);
    await sleep(200);
  }
}

const timings = {};
/** The replaced containers' logs (warnings and errors: LOG_LEVEL=warn), shown on failure. */
const replicaLogs = [];

async function main() {
  const setup = Date.now();
  await database.create();
  await cli('migrate');
  const org = await cli('org', 'create', '--name', 'Rolling Hall', '--plan', 'pro');
  const { key } = await cli('key', 'create', '--org', org.id, '--scopes', 'read,checkins:write');
  await cli('seed', '--org', org.id, '--events', '1');

  for (const r of replicas) r.port = await freePort();
  await Promise.all(replicas.map(startReplica));
  const lbPort = await freePort();
  await startNginx(lbPort);
  const base = `http://127.0.0.1:${lbPort}`;
  timings.setup_s = (Date.now() - setup) / 1000;
  log(`replicas on ${replicas.map((r) => r.port).join(' and ')}, nginx on ${lbPort}`);

  const listed = await fetch(`${base}/api/v1/tickets?limit=100`, {
    headers: { authorization: `Bearer ${key}` },
  }).then((response) => response.json());
  const tickets = listed.data.filter((ticket) => ticket.status === 'valid').slice(0, SCANNERS);
  if (tickets.length < SCANNERS) throw new Error(`only ${tickets.length} valid tickets seeded`);
  const ticketIds = tickets.map((ticket) => `'${ticket.id}'`).join(',');
  const before = Number(
    await psql(`select count(*) from checkins where ticket_id in (${ticketIds})`, databaseUrl),
  );

  const loadStarted = Date.now();
  const clients = [
    ...Array.from({ length: READERS }, (_, i) => reader(base, key, tickets, i)),
    ...tickets.map((ticket) => scanner(base, key, ticket, ticket.event_id)),
  ];
  await sleep(STEADY_MS);

  for (const r of replicas) {
    const replaceStarted = Date.now();
    log(`replica ${r.n}: SIGTERM`);
    await podman('stop', '--time', '15', r.container);
    const exitCode = (
      await podman('inspect', '--format', '{{.State.ExitCode}}', r.container)
    ).trim();
    if (exitCode !== '0') throw new Error(`replica ${r.n} exited ${exitCode}`);
    const stopped = Date.now();
    replicaLogs.push(`replica ${r.n}:\n${await podman('logs', r.container)}`);
    await podman('rm', r.container);
    log(`replica ${r.n}: stopped (exit 0) in ${stopped - replaceStarted} ms; starting it again`);
    await startReplica(r);
    const ready = Date.now();
    log(`replica ${r.n}: ready in ${ready - stopped} ms; waiting for nginx to send it requests`);
    await waitForTraffic(r, ready);
    const serving = Date.now();
    log(`replica ${r.n}: serving through nginx ${serving - ready} ms later`);
    timings[`replica_${r.n}`] = {
      stop_ms: stopped - replaceStarted,
      start_to_ready_ms: ready - stopped,
      ready_to_nginx_traffic_ms: serving - ready,
      total_ms: serving - replaceStarted,
    };
  }

  if (CRASH) {
    // A replica killed outright, with requests in flight: nginx sends them to the other replica,
    // the writes too, as they carry an Idempotency-Key (a write the dead replica committed is
    // answered from its stored answer, not applied twice).
    await sleep(STEADY_MS);
    const r = replicas[0];
    const killed = Date.now();
    log(`replica ${r.n}: SIGKILL`);
    await podman('kill', '--signal', 'KILL', r.container);
    await podman('wait', r.container).catch(() => undefined);
    replicaLogs.push(`replica ${r.n}:\n${await podman('logs', r.container)}`);
    await podman('rm', '--force', r.container);
    await startReplica(r);
    const ready = Date.now();
    await waitForTraffic(r, ready);
    timings.crash = { kill_to_ready_ms: ready - killed, total_ms: Date.now() - killed };
    log(`replica ${r.n}: back and serving through nginx ${Date.now() - killed} ms after the kill`);
  }

  await sleep(STEADY_MS);
  loadRunning = false;
  await Promise.all(clients);
  timings.load_s = (Date.now() - loadStarted) / 1000;

  const failed = outcomes.filter((outcome) => !outcome.ok);
  const reads = outcomes.filter((outcome) => outcome.kind === 'read');
  const checkins = outcomes.filter((outcome) => outcome.kind === 'checkin');
  const found = Number(
    await psql(
      `select count(*) from checkins where id in (${checkinIds.map((id) => `'${id}'`).join(',') || "''"})`,
      databaseUrl,
    ),
  );
  const after = Number(
    await psql(`select count(*) from checkins where ticket_id in (${ticketIds})`, databaseUrl),
  );
  // Requests nginx sent to a second replica after the first failed it: the log names both.
  const retried = (await accessLog()).filter((entry) => String(entry.upstream).includes(','));
  // Why nginx gave up on a replica, from its error log: refused connections (a replica stopped or
  // starting), or a connection closed or reset under a request.
  const errorLog = await nginxErrors();
  const count = (pattern) => (errorLog.match(pattern) ?? []).length;
  const result = {
    requests: outcomes.length,
    reads: reads.length,
    checkins: checkins.length,
    failed: failed.length,
    checkins_201: checkinIds.length,
    checkins_201_in_database: found,
    checkins_written: after - before,
    retried_by_nginx: retried.length,
    retried_posts: retried.filter((entry) => entry.method === 'POST').length,
    nginx_connect_refused: count(/connect\(\) failed \(111/g),
    nginx_closed_or_reset: count(/prematurely closed|reset by peer/g),
    requests_per_s: Math.round(outcomes.length / timings.load_s),
    ...timings,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const log_ = await accessLog();
  for (const outcome of failed.slice(0, 10)) {
    log(
      `failed ${outcome.kind} at +${outcome.at - loadStarted} ms: ${outcome.status} ${outcome.body}`,
    );
    const entry = log_.find((line) => outcome.id && line.request_id === outcome.id);
    if (entry) log(`  nginx: ${JSON.stringify(entry)}`);
  }
  for (const entry of retried.slice(0, 5)) log(`nginx retried: ${JSON.stringify(entry)}`);
  const problems = [
    failed.length > 0 && `${failed.length} requests failed`,
    found !== checkinIds.length &&
      `${checkinIds.length - found} check-ins answered 201 are missing`,
    after - before !== checkinIds.length &&
      `${after - before} check-ins written for ${checkinIds.length} answered 201`,
    checkinIds.length === 0 && 'no check-in was made',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(problems.join('; '));
}

try {
  await main();
  log('passed');
} catch (error) {
  process.exitCode = 1;
  log(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  for (const text of replicaLogs) log(text.slice(-3000));
  if (workDir) log(`nginx error log:\n${(await nginxErrors()).slice(-3000)}`);
} finally {
  loadRunning = false;
  nginx?.kill('SIGTERM');
  for (const r of replicas) await podman('rm', '--force', '--ignore', r.container).catch(() => {});
  await database.drop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
}
