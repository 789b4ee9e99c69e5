import { describe, expect, it } from 'vitest';
import { derivedId, idsFrom, looksLikeId, newId } from './ids';

describe('derivedId', () => {
  const at = new Date('2027-05-01T18:00:00.123Z');

  it('gives the same id for the same kind, time and key, and another for another key', () => {
    const id = derivedId('webhookMessage', at, '1042:we_1');
    expect(derivedId('webhookMessage', new Date(at), '1042:we_1')).toBe(id);
    expect(derivedId('webhookMessage', at, '1042:we_2')).not.toBe(id);
    expect(derivedId('webhookMessage', at, '1043:we_1')).not.toBe(id);
  });

  it("is shaped as newId's, and sorts by its time among them", () => {
    const id = derivedId('webhookMessage', at, 'key');
    expect(looksLikeId('webhookMessage', id)).toBe(true);
    expect(id.slice(0, 12)).toBe(newId('webhookMessage', at).slice(0, 12));
    expect(id >= idsFrom('webhookMessage', at)).toBe(true);
    expect(id < idsFrom('webhookMessage', new Date(at.getTime() + 1))).toBe(true);
  });
});
