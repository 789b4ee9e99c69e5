import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { Request, RequestHandler } from 'express';
import { API_BASE_PATH } from '@boxoffice/contract';
import { buildOpenApiDocument } from '../openapi/document';
import { SERVER_URL_PLACEHOLDER } from '../openapi/server-url';
import { JSON_CONTENT_TYPE } from './json-response';

interface Built {
  /** The serialised document, cut at each place its server URL goes. */
  parts: Buffer[];
  /** The hash of the parts, which each answer's ETag extends with its server URL. */
  digest: string;
}

/** A `Host` that is a host name or address, with an optional port: anything else is not echoed. */
const PLAIN_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The API's absolute URL for the host the client asked (a generated client in Node cannot use a
 * relative one), with the protocol Express sees (`X-Forwarded-Proto` when proxies are trusted).
 * An unusual `Host` gets the relative base path instead of being written into the document.
 */
function serverUrl(req: Request): string {
  const host = req.get('host');
  return host && PLAIN_HOST.test(host)
    ? `${req.protocol}://${host}${API_BASE_PATH}`
    : API_BASE_PATH;
}

/** The `info.version` of the document the server serves. */
export const DOCUMENT_VERSION = '1.0.0';

/** The served document's text, with SERVER_URL_PLACEHOLDER for its server URL. */
async function documentText(): Promise<string> {
  return JSON.stringify(await buildOpenApiDocument(DOCUMENT_VERSION));
}

/**
 * Writes the document's text to `file`: the build does (`dist/openapi.json`, beside the bundle),
 * so that a built server reads it instead of generating it at its first request (the generator's
 * code, about 200 ms with the event loop held, and 20 MB more resident).
 */
export async function writeOpenApiDocument(file: string): Promise<void> {
  await writeFile(file, await documentText());
}

/**
 * `GET /openapi.json`: the document written at build (`prebuiltFile`), read at the first request,
 * or, where there is none (a server run from source), generated then; answered from buffers after
 * that, as only the server URL (in `servers` and the code samples) differs between answers. An
 * `ETag` lets clients revalidate without downloading it again.
 */
export function openApiEndpoint(prebuiltFile?: string): RequestHandler {
  let built: Promise<Built> | undefined;
  const build = (): Promise<Built> => {
    if (!built) {
      const text =
        prebuiltFile && existsSync(prebuiltFile) ? readFile(prebuiltFile, 'utf8') : documentText();
      built = text.then((json) => {
        const parts = json.split(SERVER_URL_PLACEHOLDER);
        if (parts.length < 2) throw new Error('the OpenAPI document names no server URL');
        const hash = createHash('sha256');
        for (const part of parts) hash.update(part).update('\0');
        return { parts: parts.map((part) => Buffer.from(part)), digest: hash.digest('base64url') };
      });
      // A failed generation is tried again by the next request.
      built.catch(() => (built = undefined));
    }
    return built;
  };
  return async (req, res) => {
    const { parts, digest } = await build();
    const url = serverUrl(req);
    const etag = `"${createHash('sha256').update(digest).update(url).digest('base64url').slice(0, 27)}"`;
    res.set({ ETag: etag, 'Cache-Control': 'no-cache', Vary: 'Host' });
    const tags = req.get('if-none-match');
    if (
      tags &&
      tags.split(',').some((tag) => ['*', etag].includes(tag.trim().replace(/^W\//, '')))
    ) {
      res.status(304).end();
      return;
    }
    // The URL is plain (PLAIN_HOST), so it needs no escaping inside the document's strings. The
    // parts are written as they are, not joined into a copy: answers queued for a client that does
    // not read (pipelined requests) share the document's bytes instead of holding a copy each.
    const between = Buffer.from(url);
    const body = parts.flatMap((part, i) => (i === 0 ? [part] : [between, part]));
    res.setHeader('Content-Type', JSON_CONTENT_TYPE);
    res.setHeader(
      'Content-Length',
      body.reduce((length, chunk) => length + chunk.length, 0),
    );
    for (const chunk of body) res.write(chunk);
    res.end();
  };
}
