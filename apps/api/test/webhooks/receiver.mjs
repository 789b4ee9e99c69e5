// A webhook receiver on loopback, run as its own process by the webhook tests. It keeps what it
// receives and answers with the statuses planned for each path (200 once the plan is used up).
//   POST /hooks/<name>          a delivery
//   PUT  /plans/<name>          body: JSON array of the next answers to <name>: a status, or
//                               { "status": 200, "delayMs": 1500 } to answer that much later
//   GET  /received/<name>       what <name> received: [{ headers, body, at }]
import { createServer } from 'node:http';

const received = new Map();
const plans = new Map();
const port = Number(process.argv[2] ?? 0);

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const [, kind, name] = req.url.split('/');
    if (req.method === 'POST' && kind === 'hooks') {
      const list = received.get(name) ?? [];
      list.push({ headers: req.headers, body, at: Date.now() });
      received.set(name, list);
      const planned = plans.get(name)?.shift() ?? 200;
      const { status, delayMs = 0 } = typeof planned === 'number' ? { status: planned } : planned;
      setTimeout(
        () => res.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${status}`),
        delayMs,
      );
      return;
    }
    if (req.method === 'PUT' && kind === 'plans') {
      plans.set(name, JSON.parse(body));
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && kind === 'received') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(received.get(name) ?? []));
      return;
    }
    res.writeHead(404).end();
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
