import { defineConfig } from 'vitest/config';

// The browser suites: they drive the built dashboard (`dist/`) served by the real API server.
export default defineConfig({
  test: {
    include: ['e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
