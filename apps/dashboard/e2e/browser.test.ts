import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from './browser';

describe('launching the browser', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('says in one sentence how to get Chromium when there is none', async () => {
    vi.stubEnv('CHROMIUM_PATH', '/nonexistent/chromium');
    await expect(launchBrowser()).rejects.toThrow(
      'The browser tests need Chromium, and there is none at /nonexistent/chromium: install it (apt install chromium on Debian or Ubuntu; elsewhere, any Chrome or Chromium) or set CHROMIUM_PATH to its executable.',
    );
  });
});
