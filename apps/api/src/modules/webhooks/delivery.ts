import type * as Undici from 'undici';
import { checkUrlShape, guardedLookup, type UrlPolicy } from './url-guard';

/** At most this much of a receiver's answer is kept with the attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface DeliveryResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface DeliveryOptions extends UrlPolicy {
  timeoutMs: number;
  userAgent?: string;
}

/** Connections to one receiver kept open between deliveries (a busy endpoint gets many). */
const CONNECTIONS_PER_ORIGIN = 16;

let undici: Promise<typeof Undici> | undefined;
/** One connection pool per address policy: its `lookup` refuses what the policy refuses. */
const agents = new Map<boolean, Undici.Agent>();

/**
 * The HTTP client: undici, loaded on the first delivery (nothing of it is read at start-up). A
 * delivery with it costs about half the CPU of one with `node:http`, in the sender and in the
 * receiver alike (bench/README.md).
 */
async function agentFor(
  policy: UrlPolicy,
): Promise<{ agent: Undici.Agent; request: typeof Undici.request }> {
  const { Agent, request } = await (undici ??= import('undici'));
  let agent = agents.get(policy.allowPrivate);
  if (!agent) {
    agent = new Agent({
      connections: CONNECTIONS_PER_ORIGIN,
      // Checked when connecting: the address refused is the address that would be connected to.
      connect: { lookup: guardedLookup(policy) },
    });
    agents.set(policy.allowPrivate, agent);
  }
  return { agent, request };
}

/**
 * POSTs one signed message. A 2xx within the timeout is a success; any other status, a redirect
 * (never followed), a refused address, a connection error or the timeout is a failure. At most
 * RESPONSE_EXCERPT_BYTES of the answer are read and kept.
 */
export async function deliver(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: DeliveryOptions,
): Promise<DeliveryResult> {
  const started = performance.now();
  const result = (outcome: Omit<DeliveryResult, 'durationMs'>): DeliveryResult => ({
    ...outcome,
    durationMs: Math.round(performance.now() - started),
  });
  const failure = (error: string, statusCode: number | null = null) =>
    result({ ok: false, statusCode, error, responseExcerpt: null });

  let url: URL;
  try {
    url = checkUrlShape(rawUrl, options);
  } catch (error) {
    return failure((error as Error).message);
  }
  const { agent, request } = await agentFor(options);
  // The whole exchange (connecting, the answer's head and its excerpt) within the timeout.
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.timeoutMs);
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher: agent,
      signal: abort.signal,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'user-agent': options.userAgent ?? 'Boxoffice-Webhooks/1',
      },
      body,
    });
    const status = response.statusCode;
    const chunks: Buffer[] = [];
    let kept = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
      kept += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - kept);
      // Enough to show: the rest is not read (a receiver may answer without end).
      if (kept >= RESPONSE_EXCERPT_BYTES) {
        response.body.destroy();
        break;
      }
    }
    const excerpt = Buffer.concat(chunks).toString('utf8').replaceAll('\0', '') || null;
    const ok = status >= 200 && status < 300;
    let error: string | null = null;
    if (!ok) {
      const location = response.headers.location;
      error =
        status >= 300 && status < 400
          ? `redirect to ${(Array.isArray(location) ? location[0] : location) ?? '(no location)'} not followed`
          : `HTTP ${status}`;
    }
    return result({ ok, statusCode: status, error, responseExcerpt: excerpt });
  } catch (caught) {
    if (timedOut) return failure(`no answer within ${options.timeoutMs} ms`);
    return failure(describe(caught));
  } finally {
    clearTimeout(timer);
  }
}

/** A connection error as the attempt shows it: its code and message, or the refusal's reason. */
function describe(caught: unknown): string {
  const error = caught as NodeJS.ErrnoException;
  return error.code && error.code !== 'EADDRNOTPUBLIC'
    ? `${error.code}: ${error.message}`
    : error.message;
}
