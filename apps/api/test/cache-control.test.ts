import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceAssetsDir } from '../src/http/reference-assets';
import { call, useTestServer } from './setup';

/**
 * Caching over real HTTP: pages and files without a content hash in their names are revalidated
 * on every use, so a deploy is seen at once; content-hashed files are kept for a year.
 */

const IMMUTABLE = 'public, max-age=31536000, immutable';

// A dashboard build as Vite writes it: the page, hashed files under assets/, a public file.
const server = useTestServer({
  dashboardFiles: {
    'index.html':
      '<!doctype html><script type="module" src="/dashboard/assets/index-DBMxm7tp.js"></script>',
    'assets/index-DBMxm7tp.js': 'export {};',
    'assets/index-DBMxm7tp.js.map': '{}',
    'assets/index-CQ5IjQxA.css': 'body {}',
    'robots.txt': 'User-agent: *',
  },
});

async function cacheControl(pathname: string): Promise<string | null> {
  const answer = await call(server, 'GET', pathname);
  expect(answer.status, pathname).toBe(200);
  return answer.headers.get('cache-control');
}

describe('the dashboard', () => {
  it('has its page revalidated: at /dashboard/, by name, and for a client-side route', async () => {
    for (const page of ['/dashboard/', '/dashboard/index.html', '/dashboard/settings/keys']) {
      expect(await cacheControl(page), page).toBe('no-cache');
    }
  });

  it('keeps its hashed assets for a year, and revalidates a file without a hash', async () => {
    for (const asset of [
      '/dashboard/assets/index-DBMxm7tp.js',
      '/dashboard/assets/index-DBMxm7tp.js.map',
      '/dashboard/assets/index-CQ5IjQxA.css',
    ]) {
      expect(await cacheControl(asset), asset).toBe(IMMUTABLE);
    }
    expect(await cacheControl('/dashboard/robots.txt')).toBe('no-cache');
  });
});

describe('the API reference', () => {
  it('has its page and entry modules revalidated, and keeps its hashed chunks for a year', async () => {
    expect(await cacheControl('/docs')).toBe('no-cache');
    expect(await cacheControl('/docs/reference.js')).toBe('no-cache');
    expect(await cacheControl('/docs/reference.css')).toBe('no-cache');
    expect(await cacheControl('/docs/assets/standalone.esm.js')).toBe('no-cache');
    const chunks = await readdir(path.join(referenceAssetsDir(), 'chunks'));
    const chunk = chunks.find((name) => /-[A-Za-z0-9_-]{8}\.js$/.test(name));
    expect(chunk).toBeDefined();
    expect(await cacheControl(`/docs/assets/chunks/${chunk}`)).toBe(IMMUTABLE);
  });
});
