import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/main.ts', 'src/cli.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node24',
  dts: false,
  sourcemap: true,
  clean: true,
  fixedExtension: false,
  // Dependencies stay external and come from node_modules (pnpm deploy in the image).
});
