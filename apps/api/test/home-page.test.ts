import { describe, expect, it } from 'vitest';
import { call, useTestServer } from './setup';

/** `/` leads a person to the dashboard and the reference, and a program to the API. */

const POLICY =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;font-src 'self';object-src 'none';base-uri 'self';frame-ancestors 'none';form-action 'self'";
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const server = useTestServer({
  dashboardFiles: { 'index.html': '<!doctype html><title>Dashboard</title>' },
});
const bare = useTestServer();

describe('/', () => {
  it('gives a browser a page linking the dashboard and the reference, under the policy', async () => {
    const home = await call<string>(server, 'GET', '/', { headers: { accept: BROWSER_ACCEPT } });
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    expect(home.headers.get('vary')).toMatch(/Accept/i);
    expect(home.headers.get('content-security-policy')).toBe(POLICY);
    expect(home.headers.get('x-frame-options')).toBe('DENY');
    expect(home.body).toContain('<a href="/dashboard/">Dashboard</a>');
    expect(home.body).toContain('<a href="/docs">API reference</a>');
    expect(home.body).toContain('<code>/api/v1</code>');
    expect(home.body).not.toMatch(/<script|<style|style="/);
    // Each link leads somewhere.
    for (const link of ['/dashboard/', '/docs', '/openapi.json']) {
      expect((await call(server, 'GET', link)).status, link).toBe(200);
    }
  });

  it('gives a program (curl, or Accept: application/json) JSON pointing to the API', async () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const headers: Record<string, string> = accept ? { accept } : {};
      const home = await call(server, 'GET', '/', { headers });
      expect(home.status, String(accept)).toBe(200);
      expect(home.headers.get('content-type')).toMatch(/^application\/json/);
      expect(home.body).toMatchObject({
        api: '/api/v1',
        openapi: '/openapi.json',
        reference: '/docs',
        dashboard: '/dashboard/',
      });
    }
  });

  it('names no dashboard where none is served', async () => {
    const json = await call(bare, 'GET', '/', { headers: { accept: 'application/json' } });
    expect(json.body).not.toHaveProperty('dashboard');
    const page = await call<string>(bare, 'GET', '/', { headers: { accept: BROWSER_ACCEPT } });
    expect(page.body).not.toContain('/dashboard/');
    expect(page.body).toContain('<a href="/docs">');
  });
});

describe('/docs', () => {
  it('links back to the dashboard and to /', async () => {
    const docs = await call<string>(server, 'GET', '/docs', {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(docs.status).toBe(200);
    expect(docs.body).toMatch(/<nav aria-label="Boxoffice"[^>]*>[\s\S]*href="\/dashboard\/"/);
    expect(docs.body).toMatch(/<a href="\/"/);
  });
});
