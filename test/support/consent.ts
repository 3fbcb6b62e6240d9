// A seller's consent on the simulator's pages, as a browser gives it: the consent page is read,
// then its form is submitted; the answer is the redirect back to the application.

/** The form fields of a consent page (hidden inputs), as the page states them. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[decode(m[1]!)] = decode(m[2]!);
  return fields;
}

const decode = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** Where a page's form posts. */
export const formAction = (html: string): string => /<form method="post" action="([^"]*)"/.exec(html)?.[1] ?? '';

/**
 * Opens `consentUrl` (a full URL of the simulator's selling consent page or its LWA
 * authorization page), submits its form as `seller` ('new' or a consented seller's id), and
 * answers the query of the redirect back (spapi_oauth_code / code, state, selling_partner_id).
 */
export async function consent(consentUrl: string, seller = 'new'): Promise<URL> {
  const page = await fetch(consentUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page ${page.status}: ${html}`);
  const answer = await fetch(new URL(formAction(html), consentUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...formFields(html), seller }).toString(),
    redirect: 'manual',
  });
  if (answer.status !== 302) throw new Error(`consent ${answer.status}: ${await answer.text()}`);
  return new URL(answer.headers.get('location')!);
}
