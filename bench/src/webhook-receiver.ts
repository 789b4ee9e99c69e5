// A webhook receiver for the benchmark, in a process of its own: it answers 204 at once and keeps,
// per delivery, the lag from the change (the payload's `created_at`, stamped in the transaction
// that made it) to its arrival. GET /stats gives the count and the lag's percentiles; /reset
// forgets what came before.
import { createServer } from 'node:http';
import { percentile } from './stats.ts';

const lags: number[] = [];
const ids = new Set<string>();
let duplicates = 0;

const server = createServer((req, res) => {
  if (req.url === '/reset') {
    // Before the measured runs: the warm-up's deliveries are not counted.
    lags.length = 0;
    ids.clear();
    duplicates = 0;
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: string;
        created_at: string;
      };
      if (ids.has(event.id)) duplicates++;
      else {
        ids.add(event.id);
        lags.push(arrived - Date.parse(event.created_at));
      }
      res.writeHead(204).end();
    });
    return;
  }
  if (req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        count: lags.length,
        duplicates,
        p50Ms: percentile(lags, 50),
        p99Ms: percentile(lags, 99),
        maxMs: percentile(lags, 100),
      }),
    );
    return;
  }
  // /healthz, for the harness's start-up check.
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
});
// The port comes as the first argument.
server.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
