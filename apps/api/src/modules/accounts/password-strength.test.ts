import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertStrongPassword } from './password-strength';

describe('password strength', () => {
  it('accepts the demo user’s kind of password (9 random bytes, base64url)', async () => {
    for (let i = 0; i < 50; i++) {
      await expect(assertStrongPassword(randomBytes(9).toString('base64url'))).resolves.toBe(
        undefined,
      );
    }
  });

  it('refuses what is built from the related text', async () => {
    await expect(
      assertStrongPassword('riverside hall 2026', ['Riverside Hall']),
    ).rejects.toMatchObject({ status: 400, code: 'weak_password' });
    await expect(assertStrongPassword('riverside hall 2026')).resolves.toBe(undefined);
  });

  it('stays cheap on long inputs built to be slow to estimate', async () => {
    await assertStrongPassword('warm up the estimator').catch(() => undefined);
    for (const input of [
      Array.from({ length: 200 }, (_, i) => String.fromCharCode(33 + ((i * 7919) % 90))).join(''),
      'p@ssw0rd'.repeat(25),
      '|!1|!1|!1'.repeat(22),
      '1234567890'.repeat(20),
    ]) {
      const started = performance.now();
      await assertStrongPassword(input).catch(() => undefined);
      expect(performance.now() - started, input.slice(0, 20)).toBeLessThan(400);
    }
  });
});
