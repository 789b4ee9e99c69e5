import { defineConfig } from 'vitest/config';

// The SDK from its source, as `pnpm start` runs it: nothing needs building first.
export default defineConfig({
  resolve: { conditions: ['@boxoffice/source'] },
  ssr: { resolve: { conditions: ['@boxoffice/source'] } },
  test: { include: ['src/**/*.test.ts'] },
});
