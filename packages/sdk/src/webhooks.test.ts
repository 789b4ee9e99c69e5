import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { Boxoffice } from './client';
import { Webhooks, WebhookVerificationError } from './webhooks';

// Deliveries are signed here with the Standard Webhooks reference library, as the server signs.
const secret = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
const otherSecret = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;
const body = JSON.stringify({
  id: 'msg_0Vc1EMCCNV76nEZR4onMbwBB',
  type: 'checkin.created',
  created_at: '2026-11-25T20:00:00.000Z',
  data: { object: { id: 'chk_0Vc1EMCCNV76nEZR4onMbwBC', direction: 'entry', gate: 'North' } },
});
const at = new Date();

function signed(payload = body, secrets = [secret], when = at) {
  const id = 'msg_0Vc1EMCCNV76nEZR4onMbwBB';
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, when, payload)).join(' '),
  };
}

const webhooks = new Webhooks();

describe('webhooks.unwrap', () => {
  it('returns the typed event of a delivery signed with the secret', async () => {
    const event = await webhooks.unwrap(body, signed(), secret);
    expect(event.type).toBe('checkin.created');
    if (event.type === 'checkin.created') expect(event.data.object.gate).toBe('North');
    // Bytes and fetch Headers work as well as text and a plain object.
    const fromBytes = await webhooks.unwrap(
      new TextEncoder().encode(body),
      new Headers(signed()),
      secret,
    );
    expect(fromBytes).toEqual(event);
  });

  it('is on the client too', async () => {
    const client = new Boxoffice({ apiKey: 'bxo_live_' + 'x'.repeat(40) });
    expect((await client.webhooks.unwrap(body, signed(), secret)).id).toBe(
      'msg_0Vc1EMCCNV76nEZR4onMbwBB',
    );
  });

  it('accepts either secret while both sign (a rotation)', async () => {
    const headers = signed(body, [otherSecret, secret]);
    await expect(webhooks.unwrap(body, headers, secret)).resolves.toMatchObject({
      type: 'checkin.created',
    });
    await expect(webhooks.unwrap(body, headers, otherSecret)).resolves.toMatchObject({
      type: 'checkin.created',
    });
  });

  it('refuses a changed body, another secret, an old timestamp or missing headers', async () => {
    const cases: [string, Record<string, string>, string, RegExp][] = [
      [body.replace('North', 'South'), signed(), secret, /no webhook-signature matches/],
      [body, signed(), otherSecret, /no webhook-signature matches/],
      [body, signed(body, [secret], new Date(Date.now() - 10 * 60_000)), secret, /more than 300 s/],
      [body, { 'webhook-id': 'msg_x' }, secret, /missing webhook-id/],
      [body, { ...signed(), 'webhook-timestamp': 'soon' }, secret, /more than 300 s/],
    ];
    for (const [payload, headers, key, message] of cases) {
      const error = await webhooks.unwrap(payload, headers, key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('agrees with the reference library on what it accepts', async () => {
    const headers = signed();
    expect(new Webhook(secret).verify(body, headers)).toEqual(
      await webhooks.unwrap(body, headers, secret),
    );
  });
});
