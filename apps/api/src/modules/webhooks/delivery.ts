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

let undici: typeof Undici | undefined;
/** One connection pool per address policy: its `lookup` refuses what the policy refuses. */
const agents = new Map<boolean, Undici.Agent>();

/** The HTTP client: undici, loaded on the first delivery (nothing of it is read at start-up). */
async function agentFor(policy: UrlPolicy): Promise<Undici.Agent> {
  const { Agent } = (undici ??= await import('undici'));
  let agent = agents.get(policy.allowPrivate);
  if (!agent) {
    agent = new Agent({
      connections: CONNECTIONS_PER_ORIGIN,
      // Checked when connecting: the address refused is the address that would be connected to.
      connect: { lookup: guardedLookup(policy) },
    });
    agents.set(policy.allowPrivate, agent);
  }
  return agent;
}

/** Where a URL sends to, once its shape is checked: or why it may not be sent to. */
type Target = { origin: string; path: string } | { refused: string };

/** Targets by policy and URL, so that an endpoint's URL is parsed once, not at every attempt. */
const targets = new Map<string, Target>();
const TARGETS_KEPT = 1000;

function targetOf(rawUrl: string, policy: UrlPolicy): Target {
  const key = `${Number(policy.allowHttp)}${Number(policy.allowPrivate)}${rawUrl}`;
  let target = targets.get(key);
  if (!target) {
    try {
      const url = checkUrlShape(rawUrl, policy);
      target = { origin: url.origin, path: `${url.pathname}${url.search}` };
    } catch (error) {
      target = { refused: (error as Error).message };
    }
    const oldest = targets.keys().next();
    if (targets.size >= TARGETS_KEPT && !oldest.done) targets.delete(oldest.value);
    targets.set(key, target);
  }
  return target;
}

/** A receiver's answer: its status, where a redirect pointed, the start of its body. */
interface Answer {
  status: number;
  location: string | undefined;
  excerpt: Buffer;
}

class TimedOut extends Error {}

/**
 * One POST through undici's dispatcher interface (no stream, promise or abort signal per
 * request beyond this one): settles with the answer once it ends or RESPONSE_EXCERPT_BYTES of its
 * body have come (the rest is not read: a receiver may answer without end, and the connection is
 * closed), or fails with the connection's error, or with TimedOut after `timeoutMs` (the request is
 * then aborted, before it is written if it is still waiting for a connection).
 */
function exchange(
  agent: Undici.Agent,
  target: { origin: string; path: string },
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let controller: Undici.Dispatcher.DispatchController | undefined;
    let status = 0;
    let location: string | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve({ status, location, excerpt: Buffer.concat(chunks, kept) });
    };
    const timer = setTimeout(() => {
      const timedOut = new TimedOut();
      settle(timedOut);
      controller?.abort(timedOut);
    }, timeoutMs);
    try {
      agent.dispatch(
        { origin: target.origin, path: target.path, method: 'POST', headers, body },
        {
          onRequestStart(started) {
            controller = started;
            if (settled) started.abort(new TimedOut());
          },
          onResponseStart(_, statusCode, answerHeaders) {
            // 1xx answers are interim: the final one follows.
            if (statusCode < 200) return;
            status = statusCode;
            const value = answerHeaders.location;
            location = Array.isArray(value) ? value[0] : value;
          },
          onResponseData(current, chunk) {
            if (settled) return;
            const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
            chunks.push(part);
            kept += part.length;
            if (kept >= RESPONSE_EXCERPT_BYTES) {
              settle(undefined);
              current.abort(new Error('answer longer than its excerpt: not read further'));
            }
          },
          onResponseEnd() {
            settle(undefined);
          },
          onResponseError(_, error) {
            settle(error);
          },
        },
      );
    } catch (error) {
      settle(error as Error);
    }
  });
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

  const target = targetOf(rawUrl, options);
  if ('refused' in target) return failure(target.refused);
  try {
    const { status, location, excerpt } = await exchange(
      // Once made, the agent is taken as it is: no wait per delivery.
      agents.get(options.allowPrivate) ?? (await agentFor(options)),
      target,
      body,
      {
        ...headers,
        'content-type': 'application/json',
        'user-agent': options.userAgent ?? 'Boxoffice-Webhooks/1',
      },
      options.timeoutMs,
    );
    const ok = status >= 200 && status < 300;
    let error: string | null = null;
    if (!ok) {
      error =
        status >= 300 && status < 400
          ? `redirect to ${location ?? '(no location)'} not followed`
          : `HTTP ${status}`;
    }
    const text = excerpt.length === 0 ? '' : excerpt.toString('utf8').replaceAll('\0', '');
    return result({ ok, statusCode: status, error, responseExcerpt: text || null });
  } catch (caught) {
    if (caught instanceof TimedOut) return failure(`no answer within ${options.timeoutMs} ms`);
    return failure(describe(caught));
  }
}

/** A connection error as the attempt shows it: its code and message, or the refusal's reason. */
function describe(caught: unknown): string {
  const error = caught as NodeJS.ErrnoException;
  return error.code && error.code !== 'EADDRNOTPUBLIC'
    ? `${error.code}: ${error.message}`
    : error.message;
}
