import { defineConfig } from 'tsdown';

// The entry (`src/index.ts`) and cleaning `dist` first are tsdown's defaults.
export default defineConfig({
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  platform: 'neutral',
});
