import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

export interface WebhookReceiver {
  /** Where to send: this receiver on loopback, at the path asked for. */
  url: string;
  /** Every request received, in order. */
  received: { headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** A webhook receiver on loopback that answers 200 to whatever comes and keeps it. */
export async function startWebhookReceiver(pathname: string): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${pathname}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Clicks the endpoint card's "Refresh deliveries" (its list is open) until `scope`, the card
 * itself or one row of its list, shows one delivered message.
 */
export async function refreshUntilDelivered(card: Locator, scope: Locator = card): Promise<void> {
  await expect
    .poll(
      async () => {
        await card.getByRole('button', { name: 'Refresh deliveries' }).click();
        return scope.getByText('delivered', { exact: true }).count();
      },
      { timeout: 10_000 },
    )
    .toBe(1);
}
