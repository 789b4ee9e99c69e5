import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/** Where `pnpm dev` forwards API calls: the API server of `pnpm start`. */
const apiTarget = process.env.DASHBOARD_API_TARGET ?? 'http://localhost:3000';

export default defineConfig({
  // Production: the API server serves `dist/` at /dashboard/ (DASHBOARD_DIR).
  base: '/dashboard/',
  plugins: [react()],
  // Workspace packages resolve to their `src/`, so no build of the contract is needed first.
  resolve: { conditions: ['@boxoffice/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '/dashboard/api': { target: apiTarget },
      '/api': { target: apiTarget },
    },
  },
});
