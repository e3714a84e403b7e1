/** A browser of the server-rendered pages (signing, approval) over fetch: its own address, a cookie jar of one cookie, no redirects followed. */
import { fromIp, uniqueIp } from './auth';
import { testEnv } from './env';

export function pageBrowser(base = testEnv().hostUrl) {
  const ip = uniqueIp();
  let cookie = '';
  return {
    get cookie() {
      return cookie;
    },
    async get(p: string, headers: Record<string, string> = {}, method = 'GET') {
      const res = await fetch(`${base}${p}`, {
        method,
        headers: { ...fromIp(ip), ...(cookie ? { cookie } : {}), ...headers },
        redirect: 'manual',
      });
      const set = res.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0]!;
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
    async post(p: string, form: Record<string, string>, withCookie = true) {
      const res = await fetch(`${base}${p}`, {
        method: 'POST',
        headers: {
          ...fromIp(ip),
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'PageTest/1.0',
          ...(withCookie && cookie ? { cookie } : {}),
        },
        body: new URLSearchParams(form).toString(),
        redirect: 'manual',
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
  };
}

/** The CSRF token of the page's form. */
export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
