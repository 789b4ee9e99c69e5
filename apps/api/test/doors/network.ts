import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A door's network: a TCP relay between a door process and the server that the test can cut, as
 * venue Wi-Fi drops. While cut, connections already open are destroyed and new ones are accepted
 * and then left unanswered (packets into the void, not a quick "connection refused"), so a door
 * sees what a dead access point gives it: requests that hang until its own timeout.
 */
export interface DoorNetwork {
  /** The relay's base URL, to give the door instead of the server's. */
  readonly url: string;
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

export async function doorNetwork(target: { host: string; port: number }): Promise<DoorNetwork> {
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    if (cut) return; // accepted, never answered
    const upstream = connect(target.port, target.host);
    open.add(upstream);
    upstream.once('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no relay address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      cut = false;
      // Connections accepted while cut were never relayed: drop them so the door reconnects.
      for (const socket of open) socket.destroy();
    },
    get isCut() {
      return cut;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
