/**
 * A hostile client against a running server: connections that pipeline many requests for a large
 * answer and never read. The server must stay small and keep answering others.
 */
import { connect, type Socket } from 'node:net';
import { rssOf, sampleRss, sleep, type ServerProcess } from './processes.ts';

export interface PipeliningAttack {
  connections: number;
  requestsPerConnection: number;
  /** Peak RSS during the attack minus RSS just before it. */
  rssGrowthBytes: number;
  /** The slowest `/healthz` answer to a well-behaved client during the attack. */
  healthSlowestMs: number;
  healthProbes: number;
  /** Probes that failed or took over 5 s. */
  healthFailures: number;
}

function attacker(port: number, request: string, count: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      // Never reads: the answers can only pile up on the server's side.
      socket.pause();
      socket.write(request.repeat(count));
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export async function pipeliningAttack(
  server: ServerProcess,
  options: { connections: number; requestsPerConnection: number; durationMs: number },
): Promise<PipeliningAttack> {
  const before = rssOf(server.pid) ?? 0;
  const stopSampling = sampleRss([server.pid], 50);
  const health: number[] = [];
  let failures = 0;
  const attack = new AbortController();
  const probing = (async () => {
    while (!attack.signal.aborted) {
      const started = performance.now();
      try {
        const response = await fetch(`${server.baseUrl}/healthz`, {
          signal: AbortSignal.timeout(5_000),
        });
        await response.arrayBuffer();
        if (response.status !== 200) failures++;
      } catch {
        failures++;
      }
      health.push(performance.now() - started);
      await sleep(100);
    }
  })();
  const sockets = await Promise.all(
    Array.from({ length: options.connections }, () =>
      attacker(
        server.port,
        'GET /openapi.json HTTP/1.1\r\nHost: bench\r\n\r\n',
        options.requestsPerConnection,
      ),
    ),
  );
  await sleep(options.durationMs);
  attack.abort();
  await probing;
  const peak = stopSampling().get(server.pid) ?? before;
  for (const socket of sockets) socket.destroy();
  return {
    connections: options.connections,
    requestsPerConnection: options.requestsPerConnection,
    rssGrowthBytes: Math.max(0, peak - before),
    healthSlowestMs: Math.max(0, ...health),
    healthProbes: health.length,
    healthFailures: failures,
  };
}
