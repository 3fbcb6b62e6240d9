import { expect } from 'chai';
import {
  CURRENT,
  hashPassword,
  needsRehash,
  passwordProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from '../../src/identity/passwords.js';

describe('passwords', function () {
  this.timeout(60_000);

  it('hashes with scrypt, its parameters in the hash, a salt of its own each time', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).to.match(new RegExp(`^scrypt\\$${CURRENT.log2N}\\$${CURRENT.r}\\$${CURRENT.p}\\$`));
    expect(a).to.not.equal(b);
    expect(await verifyPassword('correct horse battery staple', a)).to.equal(true);
    expect(await verifyPassword('correct horse battery stapl', a)).to.equal(false);
    expect(await verifyPassword('correct horse battery staple', null)).to.equal(false);
    expect(needsRehash(a)).to.equal(false);
  });

  it('verifies a hash made with older parameters, and says it needs rehashing', async () => {
    const current = await hashPassword('an older passphrase here');
    // the same key derived with lower parameters, as a hash of an earlier release would be
    const [, , , , salt] = current.split('$');
    const { scryptSync } = await import('node:crypto');
    const key = scryptSync('an older passphrase here', Buffer.from(salt!, 'base64url'), 32, { N: 2 ** 14, r: 8, p: 1 });
    const older = ['scrypt', 14, 8, 1, salt, key.toString('base64url')].join('$');
    expect(await verifyPassword('an older passphrase here', older)).to.equal(true);
    expect(needsRehash(older)).to.equal(true);
  });

  it('takes passwords by length alone, counted in characters', () => {
    expect(passwordProblem('x'.repeat(PASSWORD_MIN_LENGTH - 1))).to.include('at least');
    expect(passwordProblem('x'.repeat(PASSWORD_MIN_LENGTH))).to.equal(null);
    expect(passwordProblem('🔑'.repeat(PASSWORD_MIN_LENGTH))).to.equal(null);
    expect(passwordProblem('x'.repeat(PASSWORD_MAX_LENGTH + 1))).to.include('at most');
  });
});
