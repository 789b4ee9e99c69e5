/**
 * `node:http`'s `createServer`, taken with `process.getBuiltinModule` rather than an `import`: an
 * ES module import of `node:http` builds its namespace, whose getters load Node's bundled undici
 * (its fetch and WebSocket), about 40 ms of start-up for nothing this server uses.
 */
export const { createServer } = process.getBuiltinModule('node:http');
