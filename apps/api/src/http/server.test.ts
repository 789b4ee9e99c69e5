import { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from './server';

const limits = { maxConnections: 100, headersTimeoutMs: 5000, requestTimeoutMs: 10_000 };

let running: HttpServer | undefined;
afterEach(async () => {
  const server = running?.server;
  running = undefined;
  if (server) await new Promise((resolve) => server.close(resolve));
});

async function listen(http: HttpServer): Promise<string> {
  running = http;
  await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.server.address() as AddressInfo).port}`;
}

describe('createHttpServer with prototypes', () => {
  it("makes requests and responses with the app's prototypes, which the app then answers through", async () => {
    const app = express();
    app.post('/echo', express.json(), (req, res) => {
      res
        .status(201)
        .set('X-Seen', req.get('x-sent') ?? '')
        .json({ got: req.body as unknown });
    });
    const made: [object | null, object | null][] = [];
    const url = await listen(
      createHttpServer(
        (req: IncomingMessage, res: ServerResponse) => {
          made.push([Object.getPrototypeOf(req), Object.getPrototypeOf(res)]);
          app(req, res);
        },
        { ...limits, prototypes: { request: app.request, response: app.response } },
      ),
    );

    for (const n of [1, 2]) {
      const response = await fetch(`${url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sent': `call ${n}` },
        body: JSON.stringify({ n }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-seen')).toBe(`call ${n}`);
      expect(await response.json()).toEqual({ got: { n } });
    }
    expect(made).toEqual([
      [app.request, app.response],
      [app.request, app.response],
    ]);
    // Still Node's own objects, by their prototype chain.
    expect(Object.prototype.isPrototypeOf.call(IncomingMessage.prototype, app.request)).toBe(true);
    expect(Object.prototype.isPrototypeOf.call(ServerResponse.prototype, app.response)).toBe(true);
  });

  it('makes them as Node does without prototypes', async () => {
    const made: [object | null, object | null][] = [];
    const url = await listen(
      createHttpServer((req: IncomingMessage, res: ServerResponse) => {
        made.push([Object.getPrototypeOf(req), Object.getPrototypeOf(res)]);
        res.end('ok');
      }, limits),
    );
    expect(await (await fetch(url)).text()).toBe('ok');
    expect(made).toEqual([[IncomingMessage.prototype, ServerResponse.prototype]]);
  });

  it("refuses prototypes that do not inherit from Node's", () => {
    const app = express();
    expect(() =>
      createHttpServer(() => undefined, {
        ...limits,
        prototypes: { request: {}, response: app.response },
      }),
    ).toThrow(/prototype given for IncomingMessage does not inherit from it/);
  });
});
