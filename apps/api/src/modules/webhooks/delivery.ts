import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
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

// Connections to a receiver are kept open between deliveries (a busy endpoint gets many).
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 16 });

/**
 * POSTs one signed message. A 2xx within the timeout is a success; any other status, a redirect
 * (never followed), a refused address, a connection error or the timeout is a failure. At most
 * RESPONSE_EXCERPT_BYTES of the answer are read and kept.
 */
export function deliver(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: DeliveryOptions,
): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    // Set once the request is under way; a refusal before it needs no timer.
    const timeout: { timer?: NodeJS.Timeout } = {};
    const finish = (result: Omit<DeliveryResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout.timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const fail = (error: string, statusCode: number | null = null) =>
      finish({ ok: false, statusCode, error, responseExcerpt: null });

    let url: URL;
    try {
      url = checkUrlShape(rawUrl, options);
    } catch (error) {
      return fail((error as Error).message);
    }
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      lookup: guardedLookup(options),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': options.userAgent ?? 'Boxoffice-Webhooks/1',
      },
    });
    timeout.timer = setTimeout(() => {
      req.destroy();
      fail(`no answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);

    req.on('error', (error: NodeJS.ErrnoException) => {
      fail(
        error.code && error.code !== 'EADDRNOTPUBLIC'
          ? `${error.code}: ${error.message}`
          : error.message,
      );
    });
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) {
          chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
          kept += Math.min(chunk.length, RESPONSE_EXCERPT_BYTES - kept);
        }
        // Enough to show: the rest is not read (a receiver may answer without end).
        if (kept >= RESPONSE_EXCERPT_BYTES) {
          done();
          res.destroy();
        }
      });
      function done() {
        const excerpt = Buffer.concat(chunks).toString('utf8').replaceAll('\0', '') || null;
        const ok = status >= 200 && status < 300;
        let error: string | null = null;
        if (!ok) {
          error =
            status >= 300 && status < 400
              ? `redirect to ${res.headers.location ?? '(no location)'} not followed`
              : `HTTP ${status}`;
        }
        finish({ ok, statusCode: status, error, responseExcerpt: excerpt });
      }
      res.on('end', done);
      res.on('error', () => done());
      res.on('aborted', () => done());
    });
    req.end(body);
  });
}
