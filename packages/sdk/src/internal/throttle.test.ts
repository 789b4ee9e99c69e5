import { describe, expect, it } from 'vitest';
import type { ClientOptions } from '../client';
import { APIConnectionError } from '../core/errors';
import { FakeClock } from '../../test/fake-clock';
import { harness } from '../../test/harness';
import { WindowedServer } from '../../test/scripted-fetch';

// Throttling against a server that counts as the API does (fixed windows, whole-second resets),
// on virtual time.

const event = { id: 'evt_0123456789abcdef', name: 'Gig' };

function setup(
  limit: number,
  open?: (start: number) => { start: number; count: number },
  options: ClientOptions & { latencyMs?: number } = {},
) {
  const clock = new FakeClock();
  const start = clock.now();
  const { latencyMs, ...clientOptions } = options;
  const server = new WindowedServer({
    limit,
    now: () => clock.now(),
    open: open?.(start),
    latency: latencyMs ? { ms: latencyMs, sleep: (ms) => clock.sleep(ms) } : undefined,
  });
  const h = harness({ clock, fallback: server.reply(event), ...clientOptions });
  return { ...h, server, start };
}

describe('throttling against a fixed-window server', () => {
  it('takes the count of a new window when the server’s window ends before the estimate', async () => {
    // The server's window began half a second before the client's first call, so its Reset (60,
    // rounded up) puts the client's estimate of the window's end 0.5 s late.
    const { client, clock, server, start } = setup(5, (t) => ({ start: t - 500, count: 0 }));
    for (let i = 0; i < 4; i++) await client.events.get(event.id);
    expect(client.rateLimit('read')).toMatchObject({ remaining: 1, resetAt: start + 60_000 });

    // Between the server's end of the window and the client's estimate: the first call takes the
    // last request the client knows of and opens the server's next window (4 left there).
    await clock.advance(59_700);
    const results = await Promise.all([client.events.get(event.id), client.events.get(event.id)]);
    expect(results).toEqual([event, event]);
    expect(server.refused).toBe(0);
    const [, second] = server.log.slice(4);
    expect(second!.at - start).toBeLessThanOrEqual(60_000);
    expect(client.rateLimit('read').remaining).toBe(3);
  });

  it('sends calls released at a reset only up to the new window’s limit; the rest wait for the next', async () => {
    // Three windows' worth of calls (no deadline), answered after 50 ms: the calls released at a
    // reset are all sent before the first of them is answered.
    const { client, server, start } = setup(5, undefined, { totalTimeout: 0, latencyMs: 50 });
    await client.events.get(event.id);
    expect(client.rateLimit('read').remaining).toBe(4);

    const results = await Promise.all(
      Array.from({ length: 12 }, () => client.events.get(event.id)),
    );
    expect(results).toHaveLength(12);
    expect(server.refused).toBe(0);
    const windows = server.log.map((entry) => Math.floor((entry.at - start) / 60_000));
    expect(windows.filter((w) => w === 0)).toHaveLength(5);
    expect(windows.filter((w) => w === 1)).toHaveLength(5);
    expect(windows.filter((w) => w === 2)).toHaveLength(3);
  });

  it('does not count attempts that never reached the server', async () => {
    const { client, clock, server, start } = setup(60, (t) => ({ start: t - 10_000, count: 58 }));
    await client.events.get(event.id);
    expect(client.rateLimit('read').remaining).toBe(1);

    server.down = true;
    const failure = client.events.get(event.id);
    await expect(failure).rejects.toBeInstanceOf(APIConnectionError);
    // Three attempts with 0.5 s and 1 s of backoff, none held for the window.
    expect(clock.now() - start).toBe(1500);
    expect(client.rateLimit('read').remaining).toBe(1);

    server.down = false;
    await expect(client.events.get(event.id)).resolves.toEqual(event);
    expect(clock.now() - start).toBe(1500);
  });
});
