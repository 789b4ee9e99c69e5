import { BoxofficeError } from './core/errors';
import type {
  Attendee,
  Checkin,
  Event,
  Order,
  Payout,
  Ticket,
  Tier,
  WebhookEndpoint,
  WebhookSubscription,
} from './resources/types';

/** The event types an endpoint can subscribe to (`event.created`, `checkin.created`, …). */
export type WebhookEventType = Exclude<WebhookSubscription, '*'>;

interface ObjectOf {
  event: Event;
  tier: Tier;
  order: Order;
  ticket: Ticket;
  attendee: Attendee;
  checkin: Checkin;
  payout: Payout;
}

/** One change pushed to a webhook endpoint; `data.object` is typed by `type`. */
export type WebhookEvent =
  | {
      [T in WebhookEventType]: {
        /** The message id, also the `webhook-id` header: the same on every retry. */
        id: string;
        /**
         * The event type, e.g. `order.created`: it says what `data.object` is. A `webhook.test` is
         * sent only on request (the dashboard's "Send test event"), whatever the endpoint's
         * `events`.
         */
        type: T;
        /** When the change was made (ISO-8601, UTC); for a `webhook.test`, when asked for. */
        created_at: string;
        /** `true` for a change of live data, `false` for test data (a `bxo_test_` key's). */
        livemode: boolean;
        /** What changed. */
        data: {
          /** The object after the change, as `get` gives it; for a `webhook.test`, the endpoint. */
          object: ObjectOf[T extends `${infer O extends keyof ObjectOf}.${string}` ? O : never];
        };
      };
    }[WebhookEventType]
  | {
      /** The message id, also the `webhook-id` header: the same on every retry. */
      id: string;
      /**
       * The event type, e.g. `order.created`: it says what `data.object` is. A `webhook.test` is
       * sent only on request (the dashboard's "Send test event"), whatever the endpoint's
       * `events`.
       */
      type: 'webhook.test';
      /** When the change was made (ISO-8601, UTC); for a `webhook.test`, when asked for. */
      created_at: string;
      /** `true` for a live endpoint's test event, `false` for a test endpoint's. */
      livemode: boolean;
      /** What changed. */
      data: {
        /** The object after the change, as `get` gives it; for a `webhook.test`, the endpoint. */
        object: WebhookEndpoint;
      };
    };

/** A delivery that is not what the endpoint's secret signed, or is too old (or new) to accept. */
export class WebhookVerificationError extends BoxofficeError {
  override name = 'WebhookVerificationError';
}

/** The request's headers: a fetch `Headers`, or a Node.js `IncomingHttpHeaders`-like object. */
export type WebhookHeaders =
  | {
      /** The value of the header `name` (any case), or `null`: as a fetch `Headers` answers. */
      get(name: string): string | null;
    }
  | Record<string, string | string[] | undefined>;

/** What `unwrap` accepts besides the delivery: the tolerance on its timestamp, and a clock. */
export interface UnwrapOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

const encoder = new TextEncoder();

const fromBase64 = (text: string): Uint8Array =>
  Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

/** Equal strings, compared without stopping at the first difference. */
function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies webhook deliveries (the Standard Webhooks scheme: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, an HMAC-SHA256 with the endpoint's `whsec_…` secret) with Web Crypto.
 */
export class Webhooks {
  /**
   * The event of a delivery, once its signature and timestamp check out; otherwise a
   * `WebhookVerificationError`. Pass the body exactly as received (the raw bytes or text, before
   * any JSON parsing) and the endpoint's secret. During a secret rotation either secret works.
   *
   * @example
   * ```ts
   * // In a fetch handler: `request` is the delivery's Request.
   * const event = await client.webhooks.unwrap(
   *   await request.text(),
   *   request.headers,
   *   process.env.BOXOFFICE_WEBHOOK_SECRET!,
   * );
   * if (event.type === 'checkin.created') console.log(event.data.object.gate);
   * ```
   */
  async unwrap(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    secret: string,
    options: UnwrapOptions = {},
  ): Promise<WebhookEvent> {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) {
      throw new WebhookVerificationError(
        'missing webhook-id, webhook-timestamp or webhook-signature header',
      );
    }
    const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
    const tolerance = options.toleranceSeconds ?? 300;
    const now = (options.now ?? Date.now()) / 1000;
    if (!(Math.abs(now - seconds) <= tolerance)) {
      throw new WebhookVerificationError(
        `webhook-timestamp is more than ${tolerance} s from now: refused as a possible replay`,
      );
    }
    let keyBytes: Uint8Array;
    try {
      keyBytes = fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);
    } catch {
      throw new WebhookVerificationError('the secret is not a whsec_… signing secret');
    }
    const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
    const prefix = encoder.encode(`${id}.${timestamp}.`);
    const signed = new Uint8Array(prefix.length + body.length);
    signed.set(prefix);
    signed.set(body, prefix.length);
    const key = await crypto.subtle.importKey(
      'raw',
      keyBytes as Uint8Array<ArrayBuffer>,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const expected = toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, signed)));
    const valid = signatures
      .split(' ')
      .some((entry) => entry.startsWith('v1,') && same(entry.slice(3), expected));
    if (!valid) throw new WebhookVerificationError('no webhook-signature matches the secret');
    try {
      return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
    } catch {
      throw new WebhookVerificationError('the body is not JSON');
    }
  }
}
