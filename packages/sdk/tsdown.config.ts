import { defineConfig } from 'tsdown';

// Cleaning `dist` first is tsdown's default. Two entries: the client, and `@boxoffice/sdk/doors`
// (which imports only types from the client, so neither build carries the other's code).
export default defineConfig({
  entry: { index: 'src/index.ts', doors: 'src/doors/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  platform: 'neutral',
  target: 'es2022',
  // Types of workspace packages come from their published declarations, not their sources.
  tsconfig: 'tsconfig.build.json',
});
