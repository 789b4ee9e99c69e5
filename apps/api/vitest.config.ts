import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@boxoffice/source'] },
  ssr: { resolve: { conditions: ['@boxoffice/source'] } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/response-check.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    env: { LOG_LEVEL: 'silent' },
  },
});
