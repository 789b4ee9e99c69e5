import { beforeAll, describe, expect, it } from 'vitest';
import { JSON_TYPE } from './assertions';
import { call, createTenant, useTestServer } from './setup';

/**
 * The security headers over real HTTP: every answer (pages, JSON, errors) carries them; the API
 * reference at /docs is a page of this origin's files only.
 */

// A stand-in for the dashboard build: what matters here is how its pages are served.
const dashboardFiles = {
  'index.html':
    '<!doctype html><html><head><script type="module" src="/dashboard/assets/app.js"></script></head><body><div id="root"></div></body></html>',
};
const server = useTestServer({ dashboardFiles });
const production = useTestServer({ dashboardFiles, hsts: true });

/** The Content-Security-Policy header as directive → sources. */
function policyOf(headers: Headers): Map<string, string[]> {
  const header = headers.get('content-security-policy');
  expect(header, 'Content-Security-Policy').toBeTruthy();
  return new Map(
    header!
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  );
}

function expectPageHeaders(headers: Headers): void {
  const policy = policyOf(headers);
  expect(policy.get('default-src')).toEqual(["'self'"]);
  expect(policy.get('script-src')).toEqual(["'self'"]);
  expect(policy.get('object-src')).toEqual(["'none'"]);
  expect(policy.get('base-uri')).toEqual(["'self'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('form-action')).toEqual(["'self'"]);
  for (const sources of policy.values()) {
    expect(sources).not.toContain("'unsafe-eval'");
    expect(sources).not.toContain('*');
  }
  expect(policy.get('script-src')).not.toContain("'unsafe-inline'");
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-powered-by')).toBeNull();
}

describe('HTML pages', () => {
  it.each(['/docs', '/docs/', '/dashboard/', '/dashboard/settings/keys'])(
    '%s may run only this origin’s scripts and may not be framed',
    async (page) => {
      const response = await fetch(`${server.baseUrl}${page}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expectPageHeaders(response.headers);
    },
  );

  it('the dashboard’s styles are its own files; only the reference allows inline styles', async () => {
    const dashboard = policyOf((await fetch(`${server.baseUrl}/dashboard/`)).headers);
    expect(dashboard.get('style-src')).toEqual(["'self'"]);
    const docs = policyOf((await fetch(`${server.baseUrl}/docs`)).headers);
    expect(docs.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
  });
});

describe('JSON answers', () => {
  it.each([
    ['GET', '/healthz', 200],
    ['GET', '/openapi.json', 200],
    ['GET', '/dashboard/api/session', 401],
    ['POST', '/docs', 404],
    ['OPTIONS', '/docs', 404],
    ['GET', '/docs/assets/no-such-file.js', 404],
    ['GET', '/docs/assets/chunks', 404],
  ])('%s %s carries the same headers and stays JSON', async (method, target, status) => {
    const result = await call(server, method, target, {
      headers: { 'x-request-id': 'headers-check' },
    });
    expect(result.status).toBe(status);
    expect(result.headers.get('content-type')).toBe(JSON_TYPE);
    expect(result.headers.get('x-request-id')).toBe('headers-check');
    expectPageHeaders(result.headers);
    if (status >= 400) expect(typeof result.body.error).toBe('string');
  });

  it.each([
    ['GET', '/api/v1/events', 401],
    ['GET', '/api/v1/nothing-here', 404],
    ['POST', '/api/v1/events', 401],
  ])('%s %s (the JSON API) allows nothing to run or frame it', async (method, target, status) => {
    const result = await call(server, method, target);
    expect(result.status).toBe(status);
    expect(result.headers.get('content-type')).toBe(JSON_TYPE);
    const policy = policyOf(result.headers);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(result.headers.get('x-frame-options')).toBe('DENY');
    expect(result.headers.get('x-content-type-options')).toBe('nosniff');
    expect(result.headers.get('referrer-policy')).toBe('no-referrer');
    expect(result.headers.get('strict-transport-security')).toBeNull();
    const secure = await call(production, method, target);
    expect(secure.headers.get('strict-transport-security')).toBe(
      'max-age=31536000; includeSubDomains',
    );
  });

  it('a successful API call keeps its body and rate-limit headers', async () => {
    const tenant = await createTenant();
    const result = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ data: [] });
    expect(result.headers.get('x-content-type-options')).toBe('nosniff');
    expect(result.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });
});

describe('Strict-Transport-Security', () => {
  it('is not sent outside production (the server may be reached over plain HTTP)', async () => {
    for (const target of ['/healthz', '/docs', '/dashboard/']) {
      const response = await fetch(`${server.baseUrl}${target}`);
      expect(response.headers.get('strict-transport-security'), target).toBeNull();
    }
  });

  it('is sent on every answer in production', async () => {
    for (const target of ['/healthz', '/docs', '/dashboard/', '/api/v1/events', '/nothing']) {
      const response = await fetch(`${production.baseUrl}${target}`);
      expect(response.headers.get('strict-transport-security'), target).toBe(
        'max-age=31536000; includeSubDomains',
      );
    }
  });
});

describe('the API reference at /docs', () => {
  let html = '';
  beforeAll(async () => {
    html = await (await fetch(`${server.baseUrl}/docs`)).text();
  });

  /** Every URL the page names in `src` or `href`. */
  const urlsOf = (page: string) =>
    [...page.matchAll(/\s(?:src|href)\s*=\s*"([^"]*)"/gi)].map((match) => match[1]!);

  it('has no inline script: only module files of this origin', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(body!.trim(), 'an inline script body').toBe('');
      expect(attributes).toMatch(/\ssrc="\/[^/]/);
    }
    // No event-handler attributes or javascript: URLs either.
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
  });

  it('names only same-origin URLs', () => {
    const urls = urlsOf(html);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      // A path of this origin (not a protocol-relative `//host`), or the empty data: icon.
      expect(url === 'data:,' || /^\/(?!\/)/.test(url), url).toBe(true);
    }
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('configures Scalar for this server’s document, without fonts, telemetry or agents', () => {
    const attribute = /data-configuration="([^"]*)"/.exec(html)?.[1];
    expect(attribute).toBeDefined();
    const configuration = JSON.parse(attribute!.replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
    expect(configuration).toMatchObject({
      url: '/openapi.json',
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
    });
    expect(configuration).not.toHaveProperty('proxyUrl');
    expect(configuration).not.toHaveProperty('cdn');
  });

  it('serves its start-up module and Scalar’s bundle as JavaScript', async () => {
    const scriptPath = /<script\b[^>]*\ssrc="([^"]+)"/.exec(html)?.[1];
    expect(scriptPath).toBe('/docs/reference.js');
    const script = await fetch(`${server.baseUrl}${scriptPath}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    const source = await script.text();

    // The module imports the bundle from this origin only.
    const imports = [...source.matchAll(/import\s*\(?\s*'([^']+)'/g)].map((match) => match[1]!);
    expect(imports).toEqual(['/docs/assets/standalone.esm.js']);
    expect(source).not.toMatch(/https?:\/\//);

    const bundle = await fetch(`${server.baseUrl}${imports[0]}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    const code = await bundle.text();
    expect(code.length).toBeGreaterThan(100_000);
    // The chunks it loads on demand are beside it.
    const chunk = /import\(`(\.\/chunks\/[^`]+\.js)`\)/.exec(code)?.[1];
    expect(chunk).toBeDefined();
    const chunkResponse = await fetch(new URL(chunk!, `${server.baseUrl}${imports[0]}`));
    expect(chunkResponse.status).toBe(200);
    expect(chunkResponse.headers.get('content-type')).toMatch(/^text\/javascript/);
    await chunkResponse.arrayBuffer();
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await fetch(`${server.baseUrl}/docs`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toBe('');
  });
});
