import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerJson, JSON_CONTENT_TYPE } from './json-response';

const VALUES: Record<string, unknown> = {
  object: { id: 'evt_1', name: 'Zoë’s launch 🎫', seats: [1, 2, 3], price: null },
  array: [{ a: 1 }, { b: 'two' }],
  string: 'plain text',
  number: 42,
  null: null,
};

/** The same routes on an app with Express's own `res.json`, and on one with `answerJson`. */
function appWith(lean: boolean): express.Express {
  const app = express();
  app.set('etag', false);
  if (lean) app.response.json = answerJson;
  app.get('/value/:name', (req, res) => {
    res.status(200).json(VALUES[req.params.name]);
  });
  app.get('/no-content/:status', (req, res) => {
    res.status(Number(req.params.status)).json({ dropped: true });
  });
  app.get('/typed', (_req, res) => {
    res.type('application/problem+json').status(422).json({ title: 'kept type' });
  });
  return app;
}

const servers: Server[] = [];
const urls: Record<'express' | 'lean', string> = { express: '', lean: '' };

beforeAll(async () => {
  for (const [name, lean] of [
    ['express', false],
    ['lean', true],
  ] as const) {
    const server = appWith(lean).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function call(side: 'express' | 'lean', path: string, method = 'GET') {
  const response = await fetch(`${urls[side]}${path}`, { method });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    length: response.headers.get('content-length'),
    body: await response.text(),
  };
}

describe('answerJson', () => {
  it.each(Object.keys(VALUES))(
    'answers a %s exactly as Express does: status, type, length and bytes',
    async (name) => {
      const lean = await call('lean', `/value/${name}`);
      expect(lean).toEqual(await call('express', `/value/${name}`));
      expect(lean.type).toBe(JSON_CONTENT_TYPE);
      expect(Number(lean.length)).toBe(Buffer.byteLength(lean.body));
      expect(JSON.parse(lean.body)).toEqual(VALUES[name]);
    },
  );

  it('sends the headers of a HEAD request without the body', async () => {
    const lean = await call('lean', '/value/object', 'HEAD');
    expect(lean).toEqual(await call('express', '/value/object', 'HEAD'));
    expect(lean.body).toBe('');
    expect(Number(lean.length)).toBe(Buffer.byteLength(JSON.stringify(VALUES.object)));
  });

  it.each([204, 304])('sends no body and no content headers with a %i', async (status) => {
    const lean = await call('lean', `/no-content/${status}`);
    expect(lean).toEqual({ status, type: null, length: null, body: '' });
    expect(lean).toEqual(await call('express', `/no-content/${status}`));
  });

  it('sends an empty body with a 205, as Express does', async () => {
    const lean = await call('lean', '/no-content/205');
    expect(lean).toMatchObject({ status: 205, length: '0', body: '' });
    expect(lean).toEqual(await call('express', '/no-content/205'));
  });

  it('keeps a type the route set', async () => {
    const lean = await call('lean', '/typed');
    expect(lean.status).toBe(422);
    expect(lean.type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(lean.body)).toEqual({ title: 'kept type' });
  });
});
