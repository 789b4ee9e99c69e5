// Runs the API image as production would, against this machine's PostgreSQL and Redis, and checks
// it end to end: the migrations (twice: the second applies nothing), the server on a read-only root
// filesystem as uid 1000, /healthz and /readyz, an API call with a key made by the CLI inside the
// image, a dashboard sign-up and sign-in (argon2), the dashboard, the API reference at /docs with
// Scalar's files from dist/, node_modules' three packages, the image's HEALTHCHECK, JSON logs
// without secrets, and exit 0 on SIGTERM.
// Started by verify.sh (which builds the image first); on its own:
//
//   node scripts/container/verify.mjs   (BOXOFFICE_IMAGE, DATABASE_URL, REDIS_URL as in verify.sh)
import { randomBytes } from 'node:crypto';
import {
  freePort,
  image,
  imageCli,
  podman,
  redisUrl,
  run,
  runDatabase,
  sleep,
  timedLog,
} from './lib.mjs';

const { log, elapsed } = timedLog('verify');
let failures = 0;
function check(ok, what, detail = '') {
  if (ok) log(`ok   ${what}`);
  else {
    failures += 1;
    log(`FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
}

const database = runDatabase('boxoffice_container');
const { name, password } = database;
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const container = `${name.replaceAll('_', '-')}`;

// Production flags: host network (PostgreSQL and Redis listen on loopback), the root filesystem
// read-only with no writable /tmp either, and the image's own user. The run's own Redis keys, so
// the sign-ups of earlier runs within the hour do not count against this one.
const runFlags = [
  '--network=host',
  '--read-only',
  '--read-only-tmpfs=false',
  '-e',
  `DATABASE_URL=${database.url}`,
  '-e',
  `REDIS_URL=${redisUrl}`,
  '-e',
  `REDIS_KEY_PREFIX=${name}`,
  '-e',
  `SECRETS_ENCRYPTION_KEYS=verify:${randomBytes(32).toString('hex')}`,
];
const cli = imageCli(runFlags);

async function main() {
  await database.create();

  const first = (await cli('migrate')).applied;
  const second = (await cli('migrate')).applied;
  check(first.length > 0, `migrate applied ${first.length} migrations`);
  check(second.length === 0, 'migrate again applied none', JSON.stringify(second));

  const org = await cli('org', 'create', '--name', 'Container Hall', '--plan', 'pro');
  const { key } = await cli('key', 'create', '--org', org.id, '--scopes', 'read');
  check(typeof key === 'string' && key.length > 20, 'the CLI in the image made an API key');

  await podman(
    'run',
    '--detach',
    '--name',
    container,
    ...runFlags,
    '-e',
    `PORT=${port}`,
    '-e',
    'HOST=127.0.0.1',
    image,
  );
  log(`server container ${container} on ${origin}`);

  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    const state = (await podman('inspect', '--format', '{{.State.Status}}', container)).trim();
    if (state !== 'running' || Date.now() > deadline) {
      throw new Error(`no answer on /healthz (${state}):\n${await podman('logs', container)}`);
    }
    await sleep(200);
  }
  log('serving');

  const health = await fetch(`${origin}/healthz`);
  check(health.status === 200, '/healthz is 200', String(health.status));
  await health.arrayBuffer();
  const ready = await fetch(`${origin}/readyz`);
  const readyBody = await ready.text();
  check(
    ready.status === 200 && JSON.parse(readyBody).status === 'ready',
    '/readyz is 200 ready (PostgreSQL and Redis)',
    readyBody,
  );

  const events = await fetch(`${origin}/api/v1/events`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const eventsBody = await events.text();
  check(
    events.status === 200 && Array.isArray(JSON.parse(eventsBody).data),
    'GET /api/v1/events with the key is 200',
    `${events.status} ${eventsBody}`,
  );

  // argon2, native code loaded from node_modules on first use, hashes and checks the password.
  const account = { email: `owner-${name}@example.com`, password: randomBytes(12).toString('hex') };
  const dashboardPost = async (route, body) => {
    const response = await fetch(`${origin}/dashboard/api${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return `${response.status} ${await response.text()}`;
  };
  const signup = await dashboardPost('/signup', {
    organisation_name: 'Container Hall',
    ...account,
  });
  check(signup.startsWith('201 '), 'a dashboard sign-up is 201', signup);
  const login = await dashboardPost('/login', account);
  check(login.startsWith('200 '), 'a sign-in with its password is 200', login);
  const wrong = await dashboardPost('/login', { ...account, password: 'not the password' });
  check(wrong.startsWith('401 '), 'a sign-in with another password is 401', wrong);

  const dashboard = await fetch(`${origin}/dashboard/`);
  const dashboardBody = await dashboard.text();
  check(
    dashboard.status === 200 &&
      /^text\/html/.test(dashboard.headers.get('content-type') ?? '') &&
      dashboardBody.includes('<div id="root">'),
    '/dashboard/ serves the dashboard',
    String(dashboard.status),
  );

  // The API reference: the page under its CSP, then Scalar's files as a browser loads them (the
  // ES module, a chunk it imports on demand, its source map), from the copy in the image's dist/.
  const docs = await fetch(`${origin}/docs`);
  const docsBody = await docs.text();
  check(
    docs.status === 200 &&
      /^text\/html/.test(docs.headers.get('content-type') ?? '') &&
      (docs.headers.get('content-security-policy') ?? '').includes("script-src 'self'"),
    '/docs serves the API reference page under its CSP',
    String(docs.status),
  );
  const docsScript = /<script\b[^>]*\ssrc="([^"]+)"/.exec(docsBody)?.[1] ?? '/docs/reference.js';
  const bundlePath = /import\('([^']+)'\)/.exec(
    await (await fetch(`${origin}${docsScript}`)).text(),
  )?.[1];
  const bundle = bundlePath ? await fetch(`${origin}${bundlePath}`) : undefined;
  const bundleCode = bundle ? await bundle.text() : '';
  check(
    bundle?.status === 200 &&
      /^text\/javascript/.test(bundle.headers.get('content-type') ?? '') &&
      bundle.headers.get('cache-control') === 'no-cache' &&
      /^W\//.test(bundle.headers.get('etag') ?? '') &&
      bundleCode.length > 100_000,
    `${bundlePath} serves Scalar's bundle, revalidated on every use (its name has no hash)`,
    `${bundle?.status} ${bundle?.headers.get('content-type')} ${bundle?.headers.get('cache-control')}`,
  );
  const assets = [
    /import\(`(\.\/chunks\/[^`]+\.js)`\)/.exec(bundleCode)?.[1],
    /\/\/# sourceMappingURL=(\S+)\s*$/.exec(bundleCode)?.[1],
  ];
  for (const asset of assets) {
    const response = asset ? await fetch(new URL(asset, `${origin}${bundlePath}`)) : undefined;
    await response?.arrayBuffer();
    check(response?.status === 200, `the bundle's ${asset} is served`, String(response?.status));
  }
  const modules = (
    await podman('exec', container, 'sh', '-c', 'cd /app/node_modules && ls -d [!@.]* @*/*')
  )
    .trim()
    .split(/\s+/)
    .sort();
  check(
    modules.join(' ') === '@node-rs/argon2 pino rate-limiter-flexible',
    'node_modules holds argon2, pino and rate-limiter-flexible only',
    modules.join(' '),
  );

  const healthcheck = (
    await podman('inspect', '--format', '{{json .Config.Healthcheck}}', container)
  ).trim();
  check(healthcheck.includes('/healthz'), 'the image has its HEALTHCHECK', healthcheck);
  const healthy = await run('podman', ['healthcheck', 'run', container]).then(
    () => true,
    (error) => `${error.stdout}${error.stderr}`,
  );
  check(healthy === true, 'the HEALTHCHECK passes', String(healthy));

  const uid = (await podman('exec', container, 'id', '-u')).trim();
  check(uid === '1000', 'runs as uid 1000', uid);
  const top = (await podman('top', container, 'user', 'args')).trim().split('\n').slice(1);
  check(
    top.length > 0 && top.every((line) => /^node\s/.test(line) || /^1000\s/.test(line)),
    'every process in the container is the node user',
    top.join(' | '),
  );
  const write = await run('podman', [
    'exec',
    container,
    'sh',
    '-c',
    'touch /app/x || touch /tmp/x',
  ]).then(
    () => 'wrote',
    (error) => error.stderr,
  );
  check(/read-only/i.test(write), 'the root filesystem is read-only', write);

  const stopStarted = Date.now();
  // Docker's default grace (10 s); `podman stop` sends SIGTERM, then SIGKILL after it.
  await podman('stop', '--time', '10', container);
  const stopMs = Date.now() - stopStarted;
  const exitCode = (await podman('inspect', '--format', '{{.State.ExitCode}}', container)).trim();
  check(exitCode === '0', `exit 0 on SIGTERM, in ${stopMs} ms`, `exit code ${exitCode}`);
  check(stopMs < 5_000, 'stopped within 5 s', `${stopMs} ms`);

  const logs = await podman('logs', container);
  const lines = logs.split('\n').filter((line) => line.trim() !== '');
  const notJson = lines.filter((line) => {
    try {
      return typeof JSON.parse(line) !== 'object';
    } catch {
      return true;
    }
  });
  check(
    lines.length > 0 && notJson.length === 0,
    `${lines.length} log lines, all JSON`,
    notJson[0],
  );
  check(
    lines.some((line) => JSON.parse(line).msg === 'stopped'),
    'the last log line says stopped',
  );
  check(
    !logs.includes(key) && !logs.includes(password) && !logs.includes(account.password),
    'no key, database password or account password in the logs',
  );
}

try {
  await main();
} catch (error) {
  failures += 1;
  log(`FAIL ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await podman('rm', '--force', '--ignore', container).catch(() => undefined);
  await database.drop();
}
log(failures === 0 ? `passed in ${elapsed()}` : `${failures} check(s) failed`);
process.exitCode = failures === 0 ? 0 : 1;
