import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { API_BASE_PATH, contract } from '@boxoffice/contract';

type Json = Record<string, unknown>;

/** OpenAPI 3.0's `nullable: true` becomes a 3.1 type union with "null". */
function toOpenApi31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi31);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) out[key] = toOpenApi31(value);
  const nullable = out.nullable === true;
  delete out.nullable;
  if (nullable) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (!out.type) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the contract. The generator is
 * loaded here, on first use, not when the server starts.
 */
export async function buildOpenApiDocument(version: string): Promise<Json> {
  const { generateOpenApi } = await import('@ts-rest/open-api');
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: 'Boxoffice API',
        version,
        description:
          'The Boxoffice public API v1. Authenticate with `Authorization: Bearer bxo_live_…` (keys are made in the dashboard under Settings → API keys; the organisation needs the Pro plan). Reads: 60 per minute per key; writes: 10 per minute.',
      },
      servers: [{ url: API_BASE_PATH }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'bxo_live_…' } },
      },
      security: [{ bearer: [] }],
    },
    { setOperationId: 'concatenated-path' },
  ) as unknown as Json;
  return { ...(toOpenApi31(document) as Json), openapi: '3.1.0' };
}

interface Served {
  body: Buffer;
  etag: string;
}

/**
 * `GET /openapi.json` from one buffer, generated and serialised once, on the first request (not
 * at start: the generator and the document cost start-up time every instance would pay): the
 * document is large, and serialising it per request let a client that asks for it many times
 * cheaply cost the server a lot. An `ETag` lets clients revalidate without downloading it again.
 */
export function openApiEndpoint(version: string): RequestHandler {
  let served: Promise<Served> | undefined;
  const serve = (): Promise<Served> => {
    if (!served) {
      served = buildOpenApiDocument(version).then((document) => {
        const body = Buffer.from(JSON.stringify(document));
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        return { body, etag };
      });
      // A failed generation is tried again by the next request.
      served.catch(() => (served = undefined));
    }
    return served;
  };
  return async (req, res) => {
    const { body, etag } = await serve();
    res.set({ ETag: etag, 'Cache-Control': 'no-cache' });
    const tags = req.get('if-none-match');
    if (
      tags &&
      tags.split(',').some((tag) => ['*', etag].includes(tag.trim().replace(/^W\//, '')))
    ) {
      res.status(304).end();
      return;
    }
    res.type('application/json; charset=utf-8').send(body);
  };
}
