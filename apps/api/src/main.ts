/**
 * The server process's entry. It turns on Node's compile cache before loading the server: V8's
 * compiled code for the bundle is kept on disk (`node-compile-cache` in the system's temporary
 * directory, or `NODE_COMPILE_CACHE`), so a start that finds it skips compiling the bundle again
 * (README.md, Deploying › Start-up). A directory that cannot be written leaves the cache off.
 *
 * `node dist/main.js --compile-cache` loads the server's code, writes the cache and exits without
 * serving: the image runs it at build, so that every container's first start finds the cache.
 */
import { enableCompileCache, flushCompileCache } from 'node:module';

enableCompileCache();
const { start } = await import('./serve');
if (process.argv[2] === '--compile-cache') flushCompileCache();
else start();
