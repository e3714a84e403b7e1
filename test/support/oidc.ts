/**
 * OpenID providers on loopback for the SSO tests:
 * - `startOidcProvider`: oidc-provider, a certified OpenID Provider, with test accounts; the
 *   browser's trip through it (login and consent prompts) is made by `authorize`.
 * - `startRogueProvider`: a minimal provider that answers the code flow with an ID token
 *   carrying one chosen defect (audience, issuer, expiry, nonce, or a key not in its JWKS), so
 *   each check of the relying party is seen refusing it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export interface Account {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface OidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
  /** Follows the provider's redirects as a browser would, signing in as `sub`; the callback URL it ends at. */
  authorize(authorizationUrl: string, sub: string): Promise<URL>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A cookie jar of one site: enough for the provider's interaction cookies. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function startOidcProvider(opts: { redirectUri: string; accounts: Record<string, Account> }): Promise<OidcProvider> {
  const { default: Provider } = await import('oidc-provider');
  const clientId = `client-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  let loginAs = '';
  // The server exists before the provider so its issuer can name the port.
  const ref: { provider?: InstanceType<typeof Provider> } = {};
  const { server, origin } = await listen((req, res) => {
    void (async () => {
      if (req.url?.startsWith('/interaction/')) {
        const details = await ref.provider!.interactionDetails(req, res);
        const accountId = loginAs;
        if (details.prompt.name === 'login') {
          await ref.provider!.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new ref.provider!.Grant({ accountId, clientId });
        grant.addOIDCScope('openid email profile');
        await ref.provider!.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
        return;
      }
      await ref.provider!.callback()(req, res);
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  const provider = new Provider(origin, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // Group membership comes with the profile, as Entra ID and Okta send `groups` once configured.
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // Real providers (Entra ID, Okta, Google) put these claims in the ID token itself.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const account = opts.accounts[id];
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });
  provider.proxy = false;
  ref.provider = provider;
  return {
    issuer: origin,
    clientId,
    clientSecret,
    close: () => close(server),
    async authorize(authorizationUrl, sub) {
      loginAs = sub;
      const jar = new Jar();
      let url = authorizationUrl;
      for (let hop = 0; hop < 12; hop++) {
        if (url.startsWith(opts.redirectUri)) return new URL(url);
        const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
        jar.take(res);
        const next = res.headers.get('location');
        if (!next) throw new Error(`the provider stopped at ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
        url = new URL(next, url).href;
      }
      throw new Error('the provider redirected too often');
    },
  };
}

export type Defect = 'none' | 'aud' | 'iss' | 'expired' | 'nonce' | 'unknown-key';

export interface RogueProvider extends OidcProvider {
  /** What the next ID token gets wrong. */
  defect: Defect;
}

/** A provider of its own making: discovery, JWKS, an authorize that returns at once, and a token endpoint. */
export async function startRogueProvider(opts: { redirectUri: string; sub: string; account: Account }): Promise<RogueProvider> {
  const published = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'published', alg: 'RS256', use: 'sig' };
  const clientId = `client-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const codes = new Map<string, string>();
  const state = { defect: 'none' as Defect };
  let issuer = '';

  async function idToken(nonce: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const d = state.defect;
    const key: CryptoKey = d === 'unknown-key' ? stranger.privateKey : published.privateKey;
    return new SignJWT({ nonce: d === 'nonce' ? 'another-nonce' : nonce, ...opts.account })
      .setProtectedHeader({ alg: 'RS256', kid: d === 'unknown-key' ? 'stranger' : 'published' })
      .setIssuer(d === 'iss' ? 'https://issuer.example.test' : issuer)
      .setAudience(d === 'aud' ? 'another-client' : clientId)
      .setSubject(opts.sub)
      .setIssuedAt(d === 'expired' ? now - 7200 : now)
      .setExpirationTime(d === 'expired' ? now - 3600 : now + 300)
      .sign(key);
  }

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const { server, origin } = await listen((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/.well-known/openid-configuration')
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        });
      if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
      if (url.pathname === '/authorize') {
        const code = randomBytes(16).toString('hex');
        codes.set(code, url.searchParams.get('nonce') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri') ?? opts.redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        let body = '';
        for await (const chunk of req) body += String(chunk);
        const code = new URLSearchParams(body).get('code') ?? '';
        const nonce = codes.get(code);
        codes.delete(code);
        if (nonce === undefined) return json(res, 400, { error: 'invalid_grant' });
        return json(res, 200, {
          access_token: randomBytes(16).toString('hex'),
          token_type: 'Bearer',
          expires_in: 300,
          id_token: await idToken(nonce),
        });
      }
      res.writeHead(404).end();
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  issuer = origin;
  return {
    issuer,
    clientId,
    clientSecret,
    get defect() {
      return state.defect;
    },
    set defect(d: Defect) {
      state.defect = d;
    },
    close: () => close(server),
    async authorize(authorizationUrl) {
      const res = await fetch(authorizationUrl, { redirect: 'manual' });
      return new URL(res.headers.get('location') ?? '');
    },
  };
}
