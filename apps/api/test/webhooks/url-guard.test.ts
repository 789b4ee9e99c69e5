import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkUrl,
  guardedLookup,
  type Resolver,
  type UrlPolicy,
} from '../../src/modules/webhooks/url-guard';
import { call, createTenant, startTestServer, type TestServer } from '../setup';
import { endpointCount } from './harness';

/**
 * Every non-public form an address can take, IPv6 forms that embed an IPv4 address included:
 * refused when an endpoint is made (a literal, or a name resolving to it) and when a delivery
 * connects (the resolved address). Each with the range its refusal names.
 */
const NON_PUBLIC: [address: string, range: string][] = [
  ['127.0.0.1', '127.0.0.0/8'],
  ['10.1.2.3', '10.0.0.0/8'],
  ['169.254.169.254', '169.254.0.0/16'],
  ['100.64.0.1', '100.64.0.0/10'],
  ['192.88.99.1', '192.88.99.0/24'],
  ['::', '::/128'],
  ['::1', '::1/128'],
  // IPv4-compatible (::/96), in hex and dotted.
  ['::7f00:1', '::/96'],
  ['::127.0.0.1', '::/96'],
  ['::a00:1', '::/96'],
  // IPv4-mapped, in hex and dotted: judged by the IPv4 address it reaches.
  ['::ffff:7f00:1', '127.0.0.0/8'],
  ['::ffff:127.0.0.1', '127.0.0.0/8'],
  ['::ffff:a9fe:a9fe', '169.254.0.0/16'],
  ['0:0:0:0:0:ffff:c0a8:1', '192.168.0.0/16'],
  // IPv4-translated.
  ['::ffff:0:7f00:1', '::ffff:0:0:0/96'],
  // NAT64: the well-known prefix of a non-public IPv4 address, and the local-use prefix.
  ['64:ff9b::7f00:1', '127.0.0.0/8'],
  ['64:ff9b::10.0.0.1', '10.0.0.0/8'],
  ['64:ff9b:1::a00:1', '64:ff9b:1::/48'],
  ['64:ff9b:1:ffff::808:808', '64:ff9b:1::/48'],
  // 6to4 and Teredo.
  ['2002:7f00:1::1', '2002::/16'],
  ['2002:808:808::1', '2002::/16'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32'],
  ['2001:2::1', '2001::/23'],
  ['100::1', '100::/64'],
  ['2001:db8::1', '2001:db8::/32'],
  ['3fff::1', '3fff::/20'],
  ['fc00::1', 'fc00::/7'],
  ['fd12:3456::1', 'fc00::/7'],
  ['fe80::1', 'fe80::/10'],
  ['fec0::1', 'fec0::/10'],
  ['ff02::1', 'ff00::/8'],
  ['5f00::1', '5f00::/16'],
  ['1::1', '2000::/3'],
];

/** Public addresses, in the same forms: accepted. */
const PUBLIC = [
  '8.8.8.8',
  '2606:4700:4700::1111',
  '::ffff:808:808',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

const literal = (address: string) =>
  address.includes(':') ? `https://[${address}]/hooks` : `https://${address}/hooks`;

const strict: UrlPolicy = { allowHttp: false, allowPrivate: false };

/** A resolver that answers `address` for every name. */
const resolvingTo =
  (address: string): Resolver =>
  () =>
    Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]);

/** What `guardedLookup` gives a connection to `hooks.example.com` resolving to `address`. */
function connect(address: string) {
  return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
    guardedLookup(strict, resolvingTo(address))('hooks.example.com', {}, (error, found) =>
      resolve({ error, address: found }),
    ),
  );
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('webhook URLs', () => {
  it('refuses every non-public address form at creation, naming its range, and makes nothing', async () => {
    const tenant = await createTenant();
    for (const [address, range] of NON_PUBLIC) {
      const refused = await call(server, 'POST', '/api/v1/webhook_endpoints', {
        key: tenant.key,
        body: { url: literal(address) },
      });
      expect(refused.status, address).toBe(422);
      expect(refused.body.code, address).toBe('invalid_webhook_url');
      expect(refused.body.error, address).toMatch(/^url must not point to a non-public address: /);
      expect(refused.body.error, address).toContain(`(${range})`);
      expect(refused.body.error, address).toContain('WEBHOOK_ALLOW_PRIVATE_URLS=true');
    }
    expect(await endpointCount(tenant.organisationId)).toBe(0);
  });

  it('refuses at creation a name that resolves to any of them', async () => {
    for (const [address, range] of NON_PUBLIC) {
      const checked = checkUrl('https://hooks.example.com/boxoffice', strict, {
        resolve: resolvingTo(address),
      });
      await expect(checked, address).rejects.toThrow(
        `url must not point to a non-public address: hooks.example.com resolves to `,
      );
      await expect(checked, address).rejects.toThrow(`(${range})`);
    }
  });

  it('refuses, when connecting, a name that resolves to any of them', async () => {
    for (const [address, range] of NON_PUBLIC) {
      const { error } = await connect(address);
      expect(error?.code, address).toBe('EADDRNOTPUBLIC');
      expect(error?.message, address).toMatch(/^hooks\.example\.com resolves to a non-public /);
      expect(error?.message, address).toContain(`(${range})`);
    }
  });

  it('accepts public addresses, as literals, names and connections', async () => {
    for (const address of PUBLIC) {
      await expect(checkUrl(literal(address), strict)).resolves.toBeInstanceOf(URL);
      const named = await checkUrl('https://hooks.example.com/boxoffice', strict, {
        resolve: resolvingTo(address),
      });
      expect(named.hostname).toBe('hooks.example.com');
      expect(await connect(address)).toEqual({ error: null, address });
    }
  });
});
