/** What the document knows of an operation when it decides which errors it can answer. */
export interface OperationFacts {
  /** `<router>.<route>`, e.g. `checkins.create`. */
  key: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** It takes a JSON body (POST and PATCH). */
  hasBody: boolean;
  /** It is a list that pages with `cursor`. */
  hasCursor: boolean;
  /** It names one object by `id` in its path. */
  hasId: boolean;
  /** Only test keys may call it (a test helper). */
  testModeOnly: boolean;
}

interface ErrorCode {
  status: number;
  /** When the server answers it, for the reader of the reference. */
  when: string;
  /** The operations that can answer it; every operation when absent. */
  on?: (operation: OperationFacts) => boolean;
}

const withBody = (operation: OperationFacts) => operation.hasBody;
const only =
  (...keys: string[]) =>
  (operation: OperationFacts) =>
    keys.includes(operation.key);

/**
 * Every `code` the public API answers with, its status and the operations that can answer it: the
 * document lists them per operation and status, and the test suites check that no response of an
 * operation carries a code or a status it does not list.
 */
export const ERROR_CODES: Readonly<Record<string, ErrorCode>> = {
  validation_failed: {
    status: 400,
    when: 'A path, query or body value is missing, of the wrong type or out of range; `details` names each one.',
  },
  invalid_request: {
    status: 400,
    when: 'The values contradict each other, e.g. `ends_at` before `starts_at`.',
    on: withBody,
  },
  malformed_json: { status: 400, when: 'The body is not JSON.', on: withBody },
  unsupported_content_type: {
    status: 400,
    when: 'A body without `Content-Type: application/json`.',
    on: withBody,
  },
  unsupported_encoding: {
    status: 400,
    when: 'A body in another charset than UTF-8.',
    on: withBody,
  },
  invalid_encoding: { status: 400, when: 'Body bytes that are not valid UTF-8.', on: withBody },
  body_too_deep: {
    status: 400,
    when: 'A body that nests arrays or objects too deep.',
    on: withBody,
  },
  invalid_idempotency_key: {
    status: 400,
    when: 'An `Idempotency-Key` that is empty or over 255 characters.',
    on: (operation) => operation.method === 'POST',
  },
  invalid_cursor: {
    status: 400,
    when: 'A `cursor` that was altered, belongs to another list, or comes with `page`.',
    on: (operation) => operation.hasCursor,
  },
  cursor_filters_mismatch: {
    status: 400,
    when: 'A `cursor` sent with other filters than the page that returned it.',
    on: (operation) => operation.hasCursor,
  },
  malformed_request: { status: 400, when: 'The request is not valid HTTP/1.1.' },
  invalid_path: { status: 400, when: 'The request path is not valid URL encoding.' },
  missing_api_key: {
    status: 401,
    when: 'No `Authorization` header: send `Bearer bxo_live_…` (or `bxo_test_…`).',
  },
  malformed_authorization: {
    status: 401,
    when: 'An `Authorization` header that is not `Bearer` and one key, or a key not in the `bxo_live_…` (or `bxo_test_…`) format.',
  },
  invalid_api_key: { status: 401, when: 'A key in the right format that does not exist.' },
  revoked_api_key: {
    status: 401,
    when: 'A key that was revoked; the message says when. Create a new one.',
  },
  plan_required: { status: 402, when: "The key's organisation is not on the Pro plan." },
  missing_scope: { status: 403, when: 'The key lacks the scope the operation needs.' },
  test_mode_only: {
    status: 403,
    when: 'A live key (`bxo_live_…`) called a test helper, which works on test data only: use a test key (`bxo_test_…`).',
    on: (operation) => operation.testModeOnly,
  },
  invalid_quantity: {
    status: 400,
    when: 'A test order of fewer than 1 or more than 20 tickets.',
    on: only('testHelpers.createOrder'),
  },
  not_found: {
    status: 404,
    when: "No such object in the key's organisation (another organisation's object is a 404 too).",
    on: (operation) => operation.hasId || operation.key === 'checkins.create',
  },
  request_timeout: {
    status: 408,
    when: 'The headers took over 10 s, or the whole request over 30 s, to arrive.',
  },
  illegal_transition: {
    status: 409,
    when: 'A status change the object does not allow.',
    on: only('events.update'),
  },
  event_final: {
    status: 409,
    when: 'The event is `completed` or `cancelled`: it and its tiers cannot change.',
    on: only('events.update', 'tiers.create', 'tiers.update'),
  },
  currency_locked: {
    status: 409,
    when: 'The currency of an event with tiers cannot change.',
    on: only('events.update'),
  },
  quantity_below_sold: {
    status: 409,
    when: "A tier's `quantity_total` below the tickets already sold.",
    on: only('tiers.update'),
  },
  ticket_void: { status: 409, when: 'The ticket is void.', on: only('checkins.create') },
  already_checked_in: {
    status: 409,
    when: 'An entry scan of a ticket that is already inside.',
    on: only('checkins.create'),
  },
  not_checked_in: {
    status: 409,
    when: 'An exit scan of a ticket that is not inside.',
    on: only('checkins.create'),
  },
  idempotency_in_flight: {
    status: 409,
    when: 'A request with the same `Idempotency-Key` is still running; retry after `Retry-After`.',
    on: (operation) => operation.method === 'POST',
  },
  event_not_on_sale: {
    status: 409,
    when: 'The event is not published: it sells no tickets.',
    on: only('testHelpers.createOrder'),
  },
  tier_not_on_sale: {
    status: 409,
    when: 'The tier is paused, or outside its sales window (`sales_start_at` to `sales_end_at`, or the event’s start).',
    on: only('testHelpers.createOrder'),
  },
  sold_out: {
    status: 409,
    when: 'The tier has fewer tickets left than asked for; the message says how many.',
    on: only('testHelpers.createOrder'),
  },
  order_refunded: {
    status: 409,
    when: 'The order is already refunded.',
    on: only('testHelpers.refundOrder'),
  },
  order_cancelled: {
    status: 409,
    when: 'The order was cancelled: nothing was paid to refund.',
    on: only('testHelpers.refundOrder'),
  },
  order_not_paid: {
    status: 409,
    when: 'The order is still pending: nothing was paid to refund.',
    on: only('testHelpers.refundOrder'),
  },
  payout_final: {
    status: 409,
    when: 'The payout is already `paid`, `failed` or `cancelled`: it moves no further.',
    on: only('testHelpers.advancePayout'),
  },
  test_data_busy: {
    status: 409,
    when: 'The test data is being made (its first use) or reset right now; try again in a few seconds.',
    on: only('testHelpers.reset'),
  },
  endpoint_limit_reached: {
    status: 409,
    when: 'The organisation already has 20 webhook endpoints.',
    on: only('webhookEndpoints.create'),
  },
  too_many_exports: {
    status: 409,
    when: 'The organisation already has 3 exports `pending` or `running`; wait for one to finish.',
    on: only('exports.create'),
  },
  export_not_ready: {
    status: 409,
    when: 'The export is not `ready`: still `pending` or `running` (poll it), or `failed`.',
    on: only('exports.file'),
  },
  export_expired: {
    status: 410,
    when: "The export's file was removed after its retention (24 hours): make a new export.",
    on: only('exports.file'),
  },
  body_too_large: { status: 413, when: 'A body over 100 kB.', on: withBody },
  range_not_satisfiable: {
    status: 416,
    when: 'A `Range` that starts past the end of the file (in the encoding sent); `Content-Range` gives its size.',
    on: only('exports.file'),
  },
  expectation_failed: {
    status: 417,
    when: 'An `Expect` header other than `100-continue`.',
  },
  unknown_event: {
    status: 422,
    when: '`event_id` names no event of the organisation.',
    on: only('tiers.create', 'testHelpers.createOrder'),
  },
  unknown_tier: {
    status: 422,
    when: '`tier_id` names no ticket tier of the organisation.',
    on: only('testHelpers.createOrder'),
  },
  wrong_event: {
    status: 422,
    when: 'The ticket (a check-in) or the ticket tier (a test order) belongs to another event than the `event_id` sent.',
    on: only('checkins.create', 'testHelpers.createOrder'),
  },
  max_per_order_exceeded: {
    status: 422,
    when: "A test order of more tickets than the tier's `max_per_order`.",
    on: only('testHelpers.createOrder'),
  },
  idempotency_key_reused: {
    status: 422,
    when: 'The `Idempotency-Key` was used before with a different request.',
    on: (operation) => operation.method === 'POST',
  },
  invalid_webhook_url: {
    status: 422,
    when: 'The URL is not https, or does not reach a public address.',
    on: only('webhookEndpoints.create', 'webhookEndpoints.update'),
  },
  rate_limited: {
    status: 429,
    when: "The key's rate limit is spent; `Retry-After` says when to try again.",
  },
  too_many_failed_authentications: {
    status: 429,
    when: "Too many failed authentications from the client's address.",
  },
  headers_too_large: { status: 431, when: 'The request line and headers are over 16 kB.' },
  internal_error: {
    status: 500,
    when: 'A bug on our side; `request_id` identifies it. Never a stack trace or SQL.',
  },
  service_unavailable: {
    status: 503,
    when: 'The database or the rate-limit store cannot be reached in time; `Retry-After` says when to try again.',
  },
};

/** The codes an operation can answer, by status. */
export function errorCodesOf(operation: OperationFacts): Map<number, string[]> {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status, on }] of Object.entries(ERROR_CODES)) {
    if (on && !on(operation)) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
