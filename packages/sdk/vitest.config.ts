import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@boxoffice/source'] },
  ssr: { resolve: { conditions: ['@boxoffice/source'] } },
  test: { include: ['src/**/*.test.ts'] },
});
