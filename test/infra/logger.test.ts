import { expect } from 'chai';
import { loggableUrl } from '../../src/infra/logger.js';

describe('request URLs in the logs', () => {
  it("withholds the marketplace's authorization codes on the connections callbacks", () => {
    expect(
      loggableUrl('/connections/selling/callback?spapi_oauth_code=pnH0Ekt&state=Gb2o&selling_partner_id=A1'),
    ).to.equal('/connections/selling/callback?spapi_oauth_code=withheld&state=Gb2o&selling_partner_id=A1');
    expect(loggableUrl('/connections/ads/callback?code=U5KrFh&state=6b0')).to.equal(
      '/connections/ads/callback?code=withheld&state=6b0',
    );
  });

  it('leaves other URLs as they came', () => {
    for (const url of ['/mcp', '/connections?connected=a8dad6cc', '/oauth/auth?response_type=code&code_challenge=x-sY'])
      expect(loggableUrl(url)).to.equal(url);
  });
});
