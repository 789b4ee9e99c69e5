import { describe, expect, it } from 'vitest';
import { requestLogLine, type RequestLogRow } from './request-log.repository';
import { RequestLogWriter } from './request-log-writer';

const row = (n: number, body: string | null): RequestLogRow => ({
  id: `req_${n}`,
  created_at: new Date(Date.UTC(2026, 11, 6, 12, 0, 0, n)),
  organisation_id: 'org_1',
  livemode: n % 2 === 0,
  api_key_id: 'key_1',
  key_hint: 'bxo_live_…a1b2',
  method: 'POST',
  route: '/events',
  path: `/events?n=${n}&name=Zoë "quoted" \\ ☃`,
  status: 422,
  error_code: 'validation_failed',
  duration_ms: 1.25,
  request_id: `req_${n}`,
  idempotency_key: null,
  idempotent_replayed: false,
  client_address: '127.0.0.1',
  user_agent: 'boxoffice-sdk/1.0.0 node/24',
  sdk_name: 'boxoffice-sdk',
  sdk_version: '1.0.0',
  response_bytes: 120,
  request_body: body,
  request_body_truncated: false,
  request_body_omitted: null,
  error_body: '{"code":"validation_failed"}',
  error_body_truncated: false,
});

describe('the request log writer', () => {
  it('hands each batch over as the lines of its records, in order, whatever their size', async () => {
    const written: string[][] = [];
    const writer = new RequestLogWriter({
      batchSize: 50,
      write: (lines) => {
        written.push(lines.toString('utf8').split(/(?<=\n)/));
        return Promise.resolve();
      },
    });
    // 120 records of up to 4 KB each: batches outgrow their first buffer several times.
    const rows = Array.from({ length: 120 }, (_, n) =>
      row(n, n % 3 === 0 ? null : `{"notes":"${'é'.repeat(n * 16)}"}`),
    );
    for (const r of rows) writer.record(r);
    expect(writer.buffered).toBe(120);
    await writer.flush();
    expect(writer.buffered).toBe(0);
    expect(written.map((batch) => batch.length)).toEqual([50, 50, 20]);
    expect(written.flat()).toEqual(rows.map(requestLogLine));
  });

  it('writes nothing when nothing waits, and a record added during a write in the next batch', async () => {
    const written: string[] = [];
    let writer: RequestLogWriter | undefined = undefined;
    writer = new RequestLogWriter({
      write: (lines) => {
        written.push(lines.toString('utf8'));
        if (written.length === 1) writer?.record(row(2, null));
        return Promise.resolve();
      },
    });
    await writer.flush();
    expect(written).toEqual([]);
    writer.record(row(1, null));
    await writer.flush();
    expect(written).toEqual([requestLogLine(row(1, null)), requestLogLine(row(2, null))]);
  });
});
