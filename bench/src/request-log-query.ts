/**
 * The dashboard's Logs page over a large request log: `records` rows spread over the last 14 UTC
 * days (one partition each), a fifth of them one organisation's, seeded with set-based SQL; then
 * that organisation's first page (`GET /dashboard/api/logs`, over HTTP, signed in) and a filtered
 * first page (`status_class=5xx`), each asked `samples` times.
 */
import pg from 'pg';
import { median, percentile } from './stats.ts';

export interface LogsPageResult {
  records: number;
  organisationRecords: number;
  seedS: number;
  firstPageMedianMs: number;
  firstPageP99Ms: number;
  errorsPageMedianMs: number;
  samples: number;
}

const DAY_MS = 86_400_000;

/** A signed-in dashboard session of a new organisation on `baseUrl`: its id and cookie. */
async function signUp(baseUrl: string): Promise<{ organisationId: string; cookie: string }> {
  const response = await fetch(`${baseUrl}/dashboard/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      organisation_name: 'Bench Logs',
      email: `logs-${Date.now()}@bench.example`,
      password: 'a long bench passphrase',
    }),
  });
  const body = (await response.json()) as { organisation?: { id: string } };
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 201 || !body.organisation || !cookie) {
    throw new Error(`sign-up for the logs case failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return { organisationId: body.organisation.id, cookie };
}

/** Seeds the rows, day by day (one statement per partition), and analyses the table. */
async function seed(db: pg.Client, organisationId: string, records: number): Promise<void> {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const perDay = Math.ceil(records / 14);
  for (let offset = 13; offset >= 0; offset--) {
    const from = new Date(today - offset * DAY_MS);
    const to = new Date(from.getTime() + DAY_MS);
    const name = `request_logs_${from.toISOString().slice(0, 10).replaceAll('-', '')}`;
    await db.query(
      `create table if not exists "${name}" partition of request_logs
         for values from ('${from.toISOString()}') to ('${to.toISOString()}')`,
    );
    // Every fifth record the organisation's, the rest 99 others'; one in fifty a 4xx, one in a
    // thousand a 5xx; spread evenly over the day.
    await db.query(
      `insert into request_logs (id, created_at, organisation_id, livemode, api_key_id, key_hint,
                                 method, route, path, status, error_code, duration_ms,
                                 request_id, client_address, user_agent, response_bytes)
       select 'req_bench_' || $4::int || '_' || i,
              $1::timestamptz + (i * (86400.0 / $3)) * interval '1 second',
              case when i % 5 = 0 then $2 else 'org_bench_other_' || (i % 99) end,
              true, 'key_bench', 'bxo_live_…abcd', 'GET', '/events', '/events?limit=20',
              case when i % 1000 = 0 then 500 when i % 50 = 0 then 404 else 200 end,
              case when i % 1000 = 0 then 'internal_error' when i % 50 = 0 then 'not_found' end,
              2.5 + (i % 40), 'req_bench_' || $4::int || '_' || i, '127.0.0.1',
              'boxoffice-sdk/0.4.0 node/24.0.0 (linux x64)', 1200
         from generate_series(0, $3::int - 1) as i
        where $1::timestamptz + (i * (86400.0 / $3)) * interval '1 second' < now()`,
      [from, organisationId, perDay, offset],
    );
  }
  await db.query('analyze request_logs');
}

async function timed(url: string, cookie: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  const body = (await response.json()) as { data?: unknown[] };
  const ms = performance.now() - started;
  if (response.status !== 200 || !Array.isArray(body.data) || body.data.length === 0) {
    throw new Error(
      `GET ${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
  return ms;
}

export async function logsPageCase(options: {
  baseUrl: string;
  databaseUrl: string;
  records: number;
  samples: number;
}): Promise<LogsPageResult> {
  const { organisationId, cookie } = await signUp(options.baseUrl);
  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    const started = performance.now();
    await seed(db, organisationId, options.records);
    const seedS = (performance.now() - started) / 1000;
    const { rows } = await db.query<{ n: string; own: string }>(
      `select count(*) as n, count(*) filter (where organisation_id = $1) as own from request_logs`,
      [organisationId],
    );
    const page = `${options.baseUrl}/dashboard/api/logs`;
    const errors = `${page}?status_class=5xx`;
    // A few asks of each first: the statements prepared on the pool's connections.
    for (let i = 0; i < 20; i++) {
      await timed(page, cookie);
      await timed(errors, cookie);
    }
    const first: number[] = [];
    const filtered: number[] = [];
    for (let i = 0; i < options.samples; i++) {
      first.push(await timed(page, cookie));
      filtered.push(await timed(errors, cookie));
    }
    return {
      records: Number(rows[0]?.n ?? 0),
      organisationRecords: Number(rows[0]?.own ?? 0),
      seedS,
      firstPageMedianMs: median(first),
      firstPageP99Ms: percentile(first, 99),
      errorsPageMedianMs: median(filtered),
      samples: options.samples,
    };
  } finally {
    await db.end();
  }
}
