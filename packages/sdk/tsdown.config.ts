import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  // Types of workspace packages come from their published declarations, not their sources.
  tsconfig: 'tsconfig.build.json',
});
