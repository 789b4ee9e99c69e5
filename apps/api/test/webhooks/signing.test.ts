import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signedHeaders } from '../../src/modules/webhooks/signing';

describe('signedHeaders', () => {
  const payload = JSON.stringify({ id: 'msg_1', type: 'checkin.created', data: {} });

  it('signs with each secret given, each verifiable by the reference library alone', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const headers = signedHeaders('msg_1', payload, [current, previous]);
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    for (const [index, secret] of [current, previous].entries()) {
      const alone = { ...headers, 'webhook-signature': signatures[index]! };
      expect(new Webhook(secret).verify(payload, alone)).toEqual(JSON.parse(payload));
      const other = index === 0 ? previous : current;
      expect(() => new Webhook(other).verify(payload, alone)).toThrow();
    }
  });

  it('signs every message with the secret it is given, however many secrets came before', () => {
    // More secrets than the signers kept, then the first ones again.
    const secrets = Array.from({ length: 1_050 }, () => newSigningSecret());
    for (const secret of [...secrets, ...secrets.slice(0, 60)]) {
      const headers = signedHeaders('msg_2', payload, [secret]);
      expect(new Webhook(secret).verify(payload, headers)).toEqual(JSON.parse(payload));
    }
  });
});
