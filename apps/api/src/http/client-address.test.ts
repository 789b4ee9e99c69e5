import { describe, expect, it } from 'vitest';
import { limitKeyOfAddress } from './client-address';

describe('the address a limit counts against', () => {
  it('is an IPv4 address as it is', () => {
    expect(limitKeyOfAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(limitKeyOfAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 network of an IPv6 address, however it is written', () => {
    const network = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:0:0:0:9',
      '2001:db8:1:2::1.2.3.4',
      '2001:db8:1:2::1%eth0',
    ]) {
      expect(limitKeyOfAddress(address), address).toBe(network);
    }
    expect(limitKeyOfAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(limitKeyOfAddress('::1')).toBe('0:0:0:0::/64');
    expect(limitKeyOfAddress('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('leaves anything else alone', () => {
    expect(limitKeyOfAddress('unknown')).toBe('unknown');
  });
});
