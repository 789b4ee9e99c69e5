import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantContext } from '../../core/context';
import { badRequest, notFound } from '../../core/errors';
import { iso } from '../../core/iso-time';
import { poolOf } from '../../db/driver';
import { deliveryAttemptsPerDay } from '../webhooks/webhook-message.service';
import * as logs from './request-log.repository';

/** Records are kept this many days by default (REQUEST_LOG_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 14;
/** Partitions are made this many days ahead of today (today's included). */
export const PARTITION_DAYS_AHEAD = 2;

export type RequestLogSummaryView = ReturnType<typeof toSummaryView>;
export type RequestLogView = ReturnType<typeof toRequestLogView>;

const toSummaryView = (row: logs.RequestLogSummaryRow) => ({
  id: row.id,
  created_at: iso(row.created_at),
  livemode: row.livemode,
  key_id: row.api_key_id,
  key_hint: row.key_hint,
  method: row.method,
  route: row.route,
  path: row.path,
  status: row.status,
  error_code: row.error_code,
  duration_ms: Math.round(row.duration_ms * 100) / 100,
  request_id: row.request_id,
  idempotency_key: row.idempotency_key,
  idempotent_replayed: row.idempotent_replayed,
  sdk_name: row.sdk_name,
  sdk_version: row.sdk_version,
});

const BODY_OMISSIONS = ['not_read', 'not_json', 'invalid_utf8', 'too_large', 'too_deep'] as const;
type BodyOmission = (typeof BODY_OMISSIONS)[number];
const asOmission = (value: string | null): BodyOmission | null =>
  (BODY_OMISSIONS as readonly string[]).includes(value ?? '') ? (value as BodyOmission) : null;

export const toRequestLogView = (row: logs.RequestLogRow) => ({
  ...toSummaryView(row),
  client_address: row.client_address,
  user_agent: row.user_agent,
  response_bytes: row.response_bytes,
  request_body: row.request_body,
  request_body_truncated: row.request_body_truncated,
  request_body_omitted: asOmission(row.request_body_omitted),
  error_body: row.error_body,
  error_body_truncated: row.error_body_truncated,
});

export type StatusFilter = { class: '2xx' | '3xx' | '4xx' | '5xx' } | { status: number };

export interface RequestLogQuery {
  status_class?: '2xx' | '3xx' | '4xx' | '5xx';
  status?: number;
  key_id?: string;
  method?: string;
  route?: string;
  request_id?: string;
  /** Only records since this moment (the operator CLI's `--since`). */
  since?: Date;
  cursor?: string;
  limit: number;
}

/** Where a page ends, as the next page's cursor carries it: the last record's time and id. */
interface Position {
  createdAt: Date;
  id: string;
}

const encodeCursor = (position: Position): string =>
  Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id]), 'utf8').toString(
    'base64url',
  );

function decodeCursor(cursor: string): Position {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [at, id] = value as unknown[];
      const createdAt = typeof at === 'string' ? new Date(at) : undefined;
      if (createdAt && !Number.isNaN(createdAt.getTime()) && typeof id === 'string') {
        return { createdAt, id };
      }
    }
  } catch {
    // Refused below, as every other cursor that is not one of ours.
  }
  throw badRequest(
    'cursor must be the next_cursor of an earlier page of this list',
    'invalid_cursor',
  );
}

/** The status range of a class (`4xx`: 400 to 499) or of one status. */
function statusRange(query: Pick<RequestLogQuery, 'status_class' | 'status'>): {
  statusFrom?: number;
  statusTo?: number;
} {
  const ranges: [number, number][] = [];
  if (query.status_class) {
    const from = Number(query.status_class[0]) * 100;
    ranges.push([from, from + 99]);
  }
  if (query.status !== undefined) ranges.push([query.status, query.status]);
  if (ranges.length === 0) return {};
  // Both given: what both allow (nothing, when they disagree).
  return {
    statusFrom: Math.max(...ranges.map(([from]) => from)),
    statusTo: Math.min(...ranges.map(([, to]) => to)),
  };
}

/**
 * A page of the organisation's recorded requests, newest first, filtered; `next_cursor` continues
 * after its last record (null on the last page).
 */
export async function listRequestLogs(
  ctx: TenantContext,
  query: RequestLogQuery,
): Promise<{ data: RequestLogSummaryView[]; next_cursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await logs.listRequestLogs(ctx.em, ctx.organisationId, {
    filters: {
      ...statusRange(query),
      apiKeyId: query.key_id,
      method: query.method,
      route: query.route,
      requestId: query.request_id,
      since: query.since,
    },
    after,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map(toSummaryView),
    next_cursor:
      rows.length > query.limit && last
        ? encodeCursor({ createdAt: last.created_at, id: last.id })
        : null,
  };
}

/**
 * The organisation's latest records in full (bodies included), newest first, filtered: what the
 * operator CLI prints.
 */
export async function latestRequestLogs(
  ctx: TenantContext,
  query: Omit<RequestLogQuery, 'cursor'>,
): Promise<RequestLogView[]> {
  const rows = await logs.listRequestLogs(
    ctx.em,
    ctx.organisationId,
    { filters: { ...statusRange(query), since: query.since }, limit: query.limit },
    true,
  );
  return rows.map(toRequestLogView);
}

/** One of the organisation's records; a 404 for another organisation's, or none. */
export async function getRequestLog(ctx: TenantContext, id: string): Promise<RequestLogView> {
  const row = await logs.findRequestLog(ctx.em, ctx.organisationId, id);
  if (!row) throw notFound('request log record');
  return toRequestLogView(row);
}

export type UsageWindow = '24h' | '14d';

const DAY_MS = 86_400_000;
const WINDOWS: Record<UsageWindow, { bucketSeconds: number; buckets: number }> = {
  '24h': { bucketSeconds: 300, buckets: 288 },
  '14d': { bucketSeconds: 86_400, buckets: 14 },
};

/** The start of the UTC day of `at`. */
const dayStart = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/**
 * The organisation's usage over the window ending with the current bucket (every bucket, empty
 * ones included), for one key or all; and its webhook delivery attempts per UTC day over the last
 * 14 days.
 */
export async function requestUsage(
  ctx: TenantContext,
  window: UsageWindow,
  apiKeyId: string | null,
  now: Date = new Date(),
) {
  const { bucketSeconds, buckets } = WINDOWS[window];
  const bucketMs = bucketSeconds * 1000;
  const to = new Date((Math.floor(now.getTime() / bucketMs) + 1) * bucketMs);
  const from = new Date(to.getTime() - buckets * bucketMs);
  const webhooksFrom = new Date(dayStart(now).getTime() - 13 * DAY_MS);
  const [rows, attempts] = await Promise.all([
    logs.usageBuckets(ctx.em, {
      organisationId: ctx.organisationId,
      from,
      to,
      bucketSeconds,
      apiKeyId,
    }),
    deliveryAttemptsPerDay(ctx, webhooksFrom),
  ]);
  const byStart = new Map(rows.map((row) => [row.start.getTime(), row]));
  const round = (ms: number | null) => (ms === null ? null : Math.round(ms * 100) / 100);
  const attemptsByDay = new Map(attempts.map((row) => [row.day, row]));
  return {
    window,
    bucket_seconds: bucketSeconds,
    key_id: apiKeyId,
    buckets: Array.from({ length: buckets }, (_, i) => {
      const start = from.getTime() + i * bucketMs;
      const row = byStart.get(start);
      return {
        start: iso(new Date(start)),
        requests: row?.requests ?? 0,
        requests_2xx: row?.requests_2xx ?? 0,
        requests_4xx: row?.requests_4xx ?? 0,
        requests_5xx: row?.requests_5xx ?? 0,
        rate_limited: row?.rate_limited ?? 0,
        p50_ms: round(row?.p50_ms ?? null),
        p99_ms: round(row?.p99_ms ?? null),
      };
    }),
    webhook_deliveries: Array.from({ length: 14 }, (_, i) => {
      const day = new Date(webhooksFrom.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      const row = attemptsByDay.get(day);
      return { day, succeeded: row?.succeeded ?? 0, failed: row?.failed ?? 0 };
    }),
  };
}

/** The organisation's requests in the 24 hours before `now`, per key id. */
export const requestsInLastDay = (
  ctx: TenantContext,
  now: Date = new Date(),
): Promise<Map<string, number>> =>
  logs.requestsPerKey(ctx.em, ctx.organisationId, new Date(now.getTime() - DAY_MS));

export type { PartitionChanges } from './request-log.repository';

/**
 * One round of the partitions' upkeep (see `maintainPartitions`): today's partition and the next
 * PARTITION_DAYS_AHEAD days' are made, records of days without a partition moved into theirs, and
 * the partitions of days wholly older than `retentionDays` dropped. Safe to run from every replica
 * at once: one does the work, the others skip.
 */
export async function maintainRequestLogPartitions(
  em: EntityManager,
  options: { retentionDays: number; now?: Date; lockTimeoutMs?: number },
): Promise<logs.PartitionChanges> {
  const today = dayStart(options.now ?? new Date());
  const ahead = Array.from({ length: PARTITION_DAYS_AHEAD + 1 }, (_, i) =>
    new Date(today.getTime() + i * DAY_MS).toISOString().slice(0, 10),
  );
  // A day's partition goes once all of that day is older than the retention.
  const keepFrom = new Date(today.getTime() - options.retentionDays * DAY_MS)
    .toISOString()
    .slice(0, 10);
  return logs.maintainPartitions(await poolOf(em), {
    ahead,
    keepFrom,
    lockTimeoutMs: options.lockTimeoutMs ?? 5000,
  });
}

/** The days that have a partition, oldest first. */
export const requestLogPartitionDays = (em: EntityManager): Promise<string[]> =>
  logs.partitionDays(em);
