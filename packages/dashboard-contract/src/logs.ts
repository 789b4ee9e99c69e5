import { ErrorSchema, TextSchema } from '@boxoffice/contract';
import { z } from 'zod';
import { ModeHeadersSchema } from './mode';

/** Records per page of the Logs page: at most this many, 50 by default. */
export const MAX_LOG_PAGE = 100;

/** The status classes the Logs page filters by. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export const StatusClassSchema = z.enum(STATUS_CLASSES);
export type StatusClass = z.infer<typeof StatusClassSchema>;

/**
 * Why a recorded request has no `request_body`: `not_read` (refused before its body was read, e.g.
 * a 429), `not_json` (not JSON, or another content type), `invalid_utf8` (bytes that are not
 * UTF-8, or another charset), `too_large` (over the body limit), `too_deep` (nested past the
 * limit). A request without a body, or a success, has neither a body nor a reason.
 */
export const BODY_OMISSIONS = [
  'not_read',
  'not_json',
  'invalid_utf8',
  'too_large',
  'too_deep',
] as const;
export const BodyOmissionSchema = z.enum(BODY_OMISSIONS);
export type BodyOmission = z.infer<typeof BodyOmissionSchema>;

/** One `/api/v1` request as the list shows it. */
export const RequestLogSummarySchema = z.object({
  /** The record's id (the server's request id for the request: unique). */
  id: z.string(),
  /** When the request arrived (ISO-8601, UTC). */
  created_at: z.string(),
  /** `true` for a request made with a live key, `false` for one of the test environment. */
  livemode: z.boolean(),
  /** The API key's id; null for none. */
  key_id: z.string().nullable(),
  /** The key's visible hint, `bxo_live_…a1B2`; never the key. */
  key_hint: z.string().nullable(),
  /** `GET`, `POST`, … */
  method: z.string(),
  /** The route's template, `/events/:id` (`unmatched` for a path no route has). */
  route: z.string(),
  /** The path as asked, with its query, `/events/evt_…?limit=5` (secrets redacted). */
  path: z.string(),
  /** The status of the answer; 499 when the client went away before it was sent. */
  status: z.number().int(),
  /** The error `code` of a 4xx or 5xx answer (`validation_failed`, `rate_limited`, …). */
  error_code: z.string().nullable(),
  /** From the request's arrival to its answer's last byte, in milliseconds. */
  duration_ms: z.number(),
  /** The `X-Request-Id` of the answer (the caller's own when it sent a valid one). */
  request_id: z.string(),
  /** The request's `Idempotency-Key`, if it sent one. */
  idempotency_key: z.string().nullable(),
  /** The answer was a stored one, replayed for a repeated `Idempotency-Key` (`Idempotent-Replayed`). */
  idempotent_replayed: z.boolean(),
  /** The SDK that sent it, from its `User-Agent` (`boxoffice-sdk`); null for other clients. */
  sdk_name: z.string().nullable(),
  /** That SDK's version, `0.4.0`. */
  sdk_version: z.string().nullable(),
});
export type RequestLogSummary = z.infer<typeof RequestLogSummarySchema>;

/** One recorded request, in full. */
export const RequestLogSchema = RequestLogSummarySchema.extend({
  /** The client's address as the server sees it (behind trusted proxies, `X-Forwarded-For`'s). */
  client_address: z.string().nullable(),
  /** The request's `User-Agent` (at most 512 characters; secrets redacted). */
  user_agent: z.string().nullable(),
  /** The answer's body size in bytes; null when unknown. */
  response_bytes: z.number().int().nullable(),
  /**
   * For a 4xx or 5xx answer, the JSON body of the request as received (secrets redacted), at most
   * 4 kB; null for a success, a request without a body, or one whose body was not stored.
   */
  request_body: z.string().nullable(),
  /** `request_body` was cut at 4 kB. */
  request_body_truncated: z.boolean(),
  /** Why a body the request had is not stored (`request_body` is then null). */
  request_body_omitted: BodyOmissionSchema.nullable(),
  /** For a 4xx or 5xx answer, the error body sent back (redacted), at most 4 kB. */
  error_body: z.string().nullable(),
  /** `error_body` was cut at 4 kB. */
  error_body_truncated: z.boolean(),
});
export type RequestLog = z.infer<typeof RequestLogSchema>;

/** The Logs page's query: filters, the cursor of the next page, and the page size. */
export const RequestLogQuerySchema = z
  .object({
    /** Only answers of this class. */
    status_class: StatusClassSchema.optional(),
    /** Only answers of this exact status (e.g. 422). */
    status: z.coerce.number().int().min(100).max(599).optional(),
    /** Only requests made with this key. */
    key_id: TextSchema.max(100).optional(),
    /** Only requests of this method. */
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']).optional(),
    /** Only requests of this route template (`/events/:id`). */
    route: TextSchema.max(200).optional(),
    /** Only the requests that carried this `X-Request-Id` (exact). */
    request_id: TextSchema.max(128).optional(),
    /** The `next_cursor` of the previous page (with the same filters). */
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,500}$/)
      .optional(),
    /** Records per page, 1 to 100 (default 50). */
    limit: z.coerce.number().int().min(1).max(MAX_LOG_PAGE).default(50),
  })
  .strict();
export type RequestLogQuery = z.input<typeof RequestLogQuerySchema>;

export const RequestLogPageSchema = z.object({
  /** Newest first. */
  data: z.array(RequestLogSummarySchema),
  /** The cursor of the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type RequestLogPage = z.infer<typeof RequestLogPageSchema>;

export const USAGE_WINDOWS = ['24h', '14d'] as const;
export const UsageWindowSchema = z.enum(USAGE_WINDOWS);
export type UsageWindow = z.infer<typeof UsageWindowSchema>;

/** One bucket of a usage chart: the requests that arrived in it. */
export const UsageBucketSchema = z.object({
  /** The bucket's start (ISO-8601, UTC): every 5 minutes over 24 h, every UTC day over 14 days. */
  start: z.string(),
  /** All requests. */
  requests: z.number().int(),
  /** Answered 2xx. */
  requests_2xx: z.number().int(),
  /** Answered 4xx (429s included). */
  requests_4xx: z.number().int(),
  /** Answered 5xx. */
  requests_5xx: z.number().int(),
  /** Answered 429 (rate limited). */
  rate_limited: z.number().int(),
  /** The median duration in milliseconds; null for a bucket without requests. */
  p50_ms: z.number().nullable(),
  /** The 99th percentile duration in milliseconds; null for a bucket without requests. */
  p99_ms: z.number().nullable(),
});
export type UsageBucket = z.infer<typeof UsageBucketSchema>;

/** Webhook delivery attempts of one UTC day, by outcome. */
export const WebhookDayUsageSchema = z.object({
  /** The day, `2026-12-08`. */
  day: z.string(),
  /** Attempts answered with a 2xx in time. */
  succeeded: z.number().int(),
  /** Attempts that were not. */
  failed: z.number().int(),
});
export type WebhookDayUsage = z.infer<typeof WebhookDayUsageSchema>;

export const UsageSchema = z.object({
  window: UsageWindowSchema,
  /** The length of a bucket: 300 (24 h) or 86400 (14 days). */
  bucket_seconds: z.number().int(),
  /** The key the numbers are for; null for all keys. */
  key_id: z.string().nullable(),
  /** Every bucket of the window, oldest first, empty ones included (288 or 14). */
  buckets: z.array(UsageBucketSchema),
  /**
   * Webhook delivery attempts per UTC day over the last 14 days, oldest first, for the whole
   * environment (whatever `key_id`).
   */
  webhook_deliveries: z.array(WebhookDayUsageSchema),
});
export type Usage = z.infer<typeof UsageSchema>;

/**
 * Developers → Logs and Usage: the organisation's recorded `/api/v1` requests in the mode of the
 * request (`X-Boxoffice-Mode`: test shows the test environment's).
 */
export const logRoutes = {
  listLogs: {
    method: 'GET',
    path: '/logs',
    headers: ModeHeadersSchema,
    query: RequestLogQuerySchema,
    responses: { 200: RequestLogPageSchema },
    summary: 'The recorded API requests, newest first, filtered; 50 a page',
  },
  getLog: {
    method: 'GET',
    path: '/logs/:id',
    headers: ModeHeadersSchema,
    pathParams: z.object({ id: TextSchema }),
    responses: { 200: z.object({ data: RequestLogSchema }), 404: ErrorSchema },
    summary: 'One recorded request, with its bodies',
  },
  getUsage: {
    method: 'GET',
    path: '/usage',
    headers: ModeHeadersSchema,
    query: z
      .object({
        /** `24h` (5-minute buckets, the default) or `14d` (daily buckets). */
        window: UsageWindowSchema.default('24h'),
        /** Only this key's requests. */
        key_id: TextSchema.max(100).optional(),
      })
      .strict(),
    responses: { 200: z.object({ data: UsageSchema }) },
    summary: 'Requests per bucket by status class, 429s and durations; webhook deliveries per day',
  },
} as const;
