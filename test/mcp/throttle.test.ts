import { expect } from 'chai';
import { demoCaller } from '../../src/mcp/throttle.js';

// Who a demo caller is for the call limits: an IPv4 address, or an IPv6 host's /64.

describe('demoCaller', () => {
  it('keeps an IPv4 address, also when it comes IPv4-mapped', () => {
    expect(demoCaller('203.0.113.7')).to.equal('203.0.113.7');
    expect(demoCaller('::ffff:203.0.113.7')).to.equal('203.0.113.7');
  });
  it('reduces an IPv6 address to its /64, however it is written', () => {
    expect(demoCaller('2001:db8:1:2::9')).to.equal('2001:db8:1:2::/64');
    expect(demoCaller('2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd')).to.equal('2001:db8:1:2::/64');
    expect(demoCaller('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(demoCaller('::1')).to.equal('0:0:0:0::/64');
    expect(demoCaller('2001:db8:1:3::9')).to.not.equal(demoCaller('2001:db8:1:2::9'));
  });
});
