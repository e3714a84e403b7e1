/** Test users made through the real HTTP API: a new organization's owner, and invited members. */
import { randomBytes } from 'node:crypto';
import type { Role } from '../../platform/security/rbac';
import { totpNow } from '../../platform/security/totp';
import { api } from './http';
import { linkToken, waitForSubject } from './mailbox';

export interface TestUser {
  token: string;
  refreshToken: string;
  user: { id: string; email: string; full_name: string; organization_id: string; role: Role };
  organizationId: string;
  email: string;
  password: string;
  /** The client address this user's requests come from (X-Forwarded-For). */
  ip: string;
}

export interface LoginBody {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  refresh_expires_in: number;
  user: TestUser['user'];
}

/**
 * A fresh client address: the per-address limits of register and login would otherwise
 * throttle a test run (all requests come from 127.0.0.1; the app trusts loopback proxies).
 * Random, so runs sharing one Redis do not share counters either.
 */
export const uniqueIp = () => `10.${[...randomBytes(3)].join('.')}`;

export const fromIp = (ip: string) => ({ 'x-forwarded-for': ip });

const uniqueEmail = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;

async function registerUser(body: Record<string, unknown>, ip: string, password: string): Promise<TestUser> {
  const res = await api<LoginBody>('POST', '/auth/register', { body, headers: fromIp(ip) });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return {
    token: res.body.access_token,
    refreshToken: res.body.refresh_token,
    user: res.body.user,
    organizationId: res.body.user.organization_id,
    email: res.body.user.email,
    password,
    ip,
  };
}

export const VERIFICATION_SUBJECT = 'Verify your email address';

/** Verifies the user's address as a person would: the link in the message the service mailed at registration. */
export async function verifyEmail(u: Pick<TestUser, 'email' | 'ip'>): Promise<void> {
  const token = linkToken(await waitForSubject(u.email, VERIFICATION_SUBJECT), 'verify-email');
  const res = await api('POST', '/auth/email/verify', { body: { token }, headers: fromIp(u.ip) });
  if (res.status !== 204) throw new Error(`email verification failed: ${res.status} ${res.text}`);
}

/**
 * A new organization's owner, with the address verified through the mailed link (an
 * organization mails nobody else before that); `verified: false` leaves it unverified.
 */
export async function signUp(opts: { organizationName?: string; verified?: boolean } = {}): Promise<TestUser> {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const email = uniqueEmail('owner');
  const owner = await registerUser(
    { email, password, full_name: 'Test Owner', organization_name: opts.organizationName ?? `Org ${email}` },
    uniqueIp(),
    password,
  );
  if (opts.verified ?? true) await verifyEmail(owner);
  return owner;
}

/** A new member of the owner's organization with that role: invited, then registered with the invite token. */
export async function addMember(owner: TestUser, role: Role): Promise<TestUser> {
  const email = uniqueEmail(role);
  const invite = await api<{ invite_token: string }>('POST', '/team/invite', { token: owner.token, body: { email, role } });
  if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${invite.text}`);
  const password = `pw-${randomBytes(8).toString('hex')}`;
  return registerUser({ email, password, full_name: `Test ${role}`, invite_token: invite.body.invite_token }, uniqueIp(), password);
}

/** Enrolls the user in MFA through setup and enable; the code used at enable cannot be used again. */
export async function enableMfa(u: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await api<{ secret: string }>('POST', '/auth/mfa/setup', { token: u.token });
  if (setup.status !== 200) throw new Error(`mfa setup failed: ${setup.status} ${setup.text}`);
  const enable = await api<{ recovery_codes: string[] }>('POST', '/auth/mfa/enable', {
    token: u.token,
    body: { code: await totpNow(setup.body.secret) },
  });
  if (enable.status !== 200) throw new Error(`mfa enable failed: ${enable.status} ${enable.text}`);
  return { secret: setup.body.secret, recoveryCodes: enable.body.recovery_codes };
}

/** A TOTP code of the next time step: the current one may just have been used. */
export const nextTotp = (secret: string) => totpNow(secret, Math.floor(Date.now() / 1000) + 30);
