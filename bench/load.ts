/**
 * Load test: mixed traffic (contract list, filter, search, get, create, update; chat with
 * and without SSE; small TXT/PDF uploads; document list) from 20 users in 3 organizations,
 * each user driven at about the default rate limit and some a little above it, against an
 * API process and a worker process of their own (own database, index prefix, task queue).
 *   source .stack/stack.env && node --import tsx bench/load.ts [seconds, default 600]
 * Checks, and exits 1 on any violation:
 *  - no 5xx and no failed request;
 *  - no cross-organization leak: every listed or read record is one the caller's organization
 *    created, answers and citations name no other organization, and reading or updating
 *    another organization's contract or document is 404;
 *  - rate limits exact: per user and limiter window (X-RateLimit-Reset) at most the limit of
 *    requests pass, a 429 only once the window's limit is used up, Remaining never repeats
 *    within a window, and every 429 carries Retry-After;
 *  - memory stable: RSS of both processes sampled every 10 s; over the second half it does not
 *    both climb faster than MAX_SLOPE_MB_PER_MIN and end above the first half's peak by 10 %;
 *  - every uploaded document is ingested (none failed).
 * Prints requests by kind and status, p50/p99 per kind, 429s and the memory series.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { trusted } from 'mongoose';
import { Contract } from '../models/contract';
import { Document } from '../models/document';
import { User as UserRecord } from '../models/user';
import { makePdf } from '../test/support/documents';
import { fromIp, uniqueIp } from '../test/support/auth';
import { repoRoot, startApiProcess, startWorkerProcess } from '../test/support/processes';
import { closeBench, memoryOf, openBench, percentile, runBench, waitForWorker } from './support';

const SECONDS = Number(process.argv[2] ?? 600);
const LIMIT = 60;
const ORGS = [7, 7, 6];
/** Requests per minute a user is driven at: most just under the limit, every third a fifth above it. */
const rateOf = (userIndex: number) => (userIndex % 3 === 2 ? 72 : 57);
const MAX_IN_FLIGHT_PER_USER = 4;
const REQUEST_TIMEOUT_MS = 60000;
const SAMPLE_EVERY_MS = 10000;
/** Memory is stable unless, over the second half, it climbs faster than this and ends above the first half's peak by this much. */
const MAX_SLOPE_MB_PER_MIN = 5;
const MAX_GROWTH_OVER_FIRST_PEAK = 0.1;

const run = randomBytes(3).toString('hex');

// ---------------------------------------------------------------- requests and what came back

type Kind =
  | 'setup'
  | 'list'
  | 'list_filter'
  | 'list_search'
  | 'get'
  | 'get_foreign'
  | 'update_foreign'
  | 'create'
  | 'update'
  | 'chat'
  | 'chat_sse'
  | 'upload'
  | 'documents'
  | 'document_foreign';

interface Sample {
  user: number;
  kind: Kind;
  status: number;
  ms: number;
  /** Rate-limit headers; null when absent. */
  limit: number | null;
  remaining: number | null;
  reset: number | null;
  retryAfter: string | null;
  /** When the answer arrived (ms since the epoch). */
  at: number;
}

interface User {
  index: number;
  org: number;
  token: string;
  ip: string;
}

interface Org {
  id: string;
  tag: string;
  contracts: Set<string>;
  documents: Set<string>;
}

const samples: Sample[] = [];
const violations: string[] = [];
const violation = (what: string) => {
  if (violations.length < 200) violations.push(what);
  else if (violations.length === 200) violations.push('... (more violations not listed)');
};
let transportErrors = 0;
/** Listed or read ids not (yet) known as the caller's organization's: checked again at the end. */
const pendingIds: Array<{ org: number; kind: 'contract' | 'document'; id: string; user: number }> = [];

let base = '';

const headerInt = (h: Headers, name: string) => {
  const v = h.get(name);
  return v === null ? null : Number(v);
};

/** One request as `user`, recorded with its status, latency and rate-limit headers; null when it failed outright. */
async function call<T>(
  user: User,
  kind: Kind,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: T | undefined; text: string } | null> {
  const headers: Record<string, string> = { authorization: `Bearer ${user.token}`, ...fromIp(user.ip) };
  let payload: string | FormData | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const started = performance.now();
  try {
    const res = await fetch(`${base}${url}`, { method, headers, body: payload, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    const ms = performance.now() - started;
    samples.push({
      user: user.index,
      kind,
      status: res.status,
      ms,
      limit: headerInt(res.headers, 'x-ratelimit-limit'),
      remaining: headerInt(res.headers, 'x-ratelimit-remaining'),
      reset: headerInt(res.headers, 'x-ratelimit-reset'),
      retryAfter: res.headers.get('retry-after'),
      at: Date.now(),
    });
    if (res.status >= 500) violation(`${kind} ${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
    let parsed: T | undefined;
    if (res.headers.get('content-type')?.includes('application/json') && text) parsed = JSON.parse(text) as T;
    return { status: res.status, body: parsed, text };
  } catch (err) {
    transportErrors++;
    violation(`${kind} ${method} ${url}: ${(err as Error).message}`);
    return null;
  }
}

// ---------------------------------------------------------------- setup: organizations and users

async function register(ip: string, body: Record<string, unknown>): Promise<{ token: string; organizationId: string }> {
  // Registration has its own per-address limit: each user comes from an address of its own.
  const res = await fetch(`${base}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...fromIp(ip) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${text}`);
  const login = JSON.parse(text) as { access_token: string; user: { organization_id: string } };
  return { token: login.access_token, organizationId: login.user.organization_id };
}

/** Three organizations of 7, 7 and 6 users: an owner who invites the others (members, some admins). */
async function setUp(): Promise<{ users: User[]; orgs: Org[] }> {
  const users: User[] = [];
  const orgs: Org[] = [];
  for (const [o, size] of ORGS.entries()) {
    const tag = `Orgtag${o}x${run}`;
    const ownerIp = uniqueIp();
    const registered = await register(ownerIp, {
      email: `load-${run}-o${o}@example.test`,
      password: `pw-${run}-owner`,
      full_name: 'Load Owner',
      organization_name: tag,
    });
    // Inviting needs a verified owner (the link itself is tested in test/component/identity/email-verification.test.ts).
    await UserRecord.updateOne({ email: `load-${run}-o${o}@example.test` }, { $set: { email_verified_at: new Date() } });
    orgs.push({ id: registered.organizationId, tag, contracts: new Set(), documents: new Set() });
    const owner: User = { index: users.length, org: o, ip: ownerIp, token: registered.token };
    users.push(owner);
    for (let m = 1; m < size; m++) {
      const email = `load-${run}-o${o}-m${m}@example.test`;
      const invite = await call<{ invite_token: string }>(owner, 'setup', 'POST', '/team/invite', {
        email,
        role: m % 3 === 0 ? 'admin' : 'member',
      });
      if (invite?.status !== 201 || !invite.body) throw new Error(`invite failed: ${invite?.status} ${invite?.text}`);
      const ip = uniqueIp();
      const member = await register(ip, {
        email,
        password: `pw-${run}-member`,
        full_name: `Load Member ${m}`,
        invite_token: invite.body.invite_token,
      });
      users.push({ index: users.length, org: o, ip, token: member.token });
    }
  }
  return { users, orgs };
}

// ---------------------------------------------------------------- the traffic

const WORDS = ['harbour', 'supply', 'licence', 'catering', 'freight', 'audit'];
const TYPES = ['nda', 'service_agreement', 'employment', 'consulting', 'lease'];
const STATUSES = ['draft', 'active', 'completed', 'expired'];
const MIX: Array<[Kind, number]> = [
  ['list', 20],
  ['list_filter', 10],
  ['list_search', 10],
  ['get', 10],
  ['get_foreign', 4],
  ['update_foreign', 2],
  ['create', 15],
  ['update', 10],
  ['chat', 5],
  ['chat_sse', 3],
  ['upload', 5],
  ['documents', 4],
  ['document_foreign', 2],
];
const MIX_TOTAL = MIX.reduce((a, [, w]) => a + w, 0);

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const pickKind = (): Kind => {
  let r = Math.random() * MIX_TOTAL;
  for (const [kind, w] of MIX) if ((r -= w) < 0) return kind;
  return 'list';
};

interface ListItem {
  id: string;
  title?: string;
}

class Traffic {
  private seq = 0;
  constructor(
    private readonly orgs: Org[],
    private readonly files: Array<{ name: string; type: string; bytes: Buffer }[]>,
  ) {}

  private foreignOrg(user: User): Org {
    return pick(this.orgs.filter((_, i) => i !== user.org));
  }

  /** The ids must be the caller's organization's; unknown ones (a create still in flight) are checked at the end. */
  private checkIds(user: User, kind: 'contract' | 'document', items: ListItem[] | undefined) {
    const own = this.orgs[user.org]!;
    for (const item of items ?? []) {
      if (!(kind === 'contract' ? own.contracts : own.documents).has(item.id))
        pendingIds.push({ org: user.org, kind, id: item.id, user: user.index });
      this.checkText(user, `${kind} ${item.id} title`, item.title);
    }
  }

  /** Text shown to a user must not name another organization. */
  private checkText(user: User, where: string, text: string | undefined) {
    if (!text) return;
    for (const [i, org] of this.orgs.entries()) {
      if (i !== user.org && text.includes(org.tag))
        violation(`leak: user ${user.index} (org ${user.org}) saw org ${i}'s ${org.tag} in ${where}`);
    }
  }

  private expect(user: User, kind: Kind, res: { status: number; text: string } | null, ...ok: number[]): boolean {
    if (!res || res.status === 429) return false;
    if (!ok.includes(res.status)) violation(`${kind} by user ${user.index}: unexpected ${res.status} ${res.text.slice(0, 200)}`);
    return res.status === ok[0];
  }

  async act(user: User): Promise<void> {
    const own = this.orgs[user.org]!;
    let kind = pickKind();
    if ((kind === 'get' || kind === 'update') && own.contracts.size === 0) kind = 'create';
    if (kind === 'get_foreign' || kind === 'update_foreign') {
      if (this.foreignOrg(user).contracts.size === 0) kind = 'list';
    }
    if (kind === 'document_foreign' && this.foreignOrg(user).documents.size === 0) kind = 'documents';
    const n = ++this.seq;
    switch (kind) {
      case 'list':
      case 'list_filter':
      case 'list_search': {
        const foreignSearch = kind === 'list_search' && n % 2 === 0;
        const query =
          kind === 'list'
            ? `page=${1 + (n % 3)}&page_size=20`
            : kind === 'list_filter'
              ? `status=${pick(STATUSES)}&type=${pick(TYPES)}`
              : `search=${encodeURIComponent(foreignSearch ? this.foreignOrg(user).tag : pick(WORDS))}`;
        const res = await call<{ contracts: ListItem[]; total: number }>(user, kind, 'GET', `/contracts?${query}`);
        if (!this.expect(user, kind, res, 200)) return;
        this.checkIds(user, 'contract', res!.body?.contracts);
        if (foreignSearch && res!.body?.total !== 0)
          violation(`leak: user ${user.index} searching another organization's tag got total ${res!.body?.total}`);
        return;
      }
      case 'get': {
        const id = pick([...own.contracts]);
        const res = await call<ListItem>(user, kind, 'GET', `/contracts/${id}`);
        if (this.expect(user, kind, res, 200) && res!.body?.id !== id) violation(`get ${id} answered ${res!.body?.id}`);
        return;
      }
      case 'get_foreign': {
        const res = await call(user, kind, 'GET', `/contracts/${pick([...this.foreignOrg(user).contracts])}`);
        if (res && res.status !== 404 && res.status !== 429)
          violation(`leak: user ${user.index} read another organization's contract: ${res.status}`);
        return;
      }
      case 'update_foreign': {
        const res = await call(user, kind, 'PUT', `/contracts/${pick([...this.foreignOrg(user).contracts])}`, {
          title: `${own.tag} took this`,
        });
        if (res && res.status !== 404 && res.status !== 429)
          violation(`leak: user ${user.index} updated another organization's contract: ${res.status}`);
        return;
      }
      case 'create': {
        const word = pick(WORDS);
        const res = await call<ListItem>(user, kind, 'POST', '/contracts', {
          title: `${own.tag} ${word} agreement ${n}`,
          type: pick(TYPES),
          counterparty: `${own.tag} Counterparty ${n % 10}`,
          content: `The ${word} services renew yearly; either party may end them with 60 days' notice.`,
        });
        if (this.expect(user, kind, res, 201) && res!.body?.id) own.contracts.add(res!.body.id);
        return;
      }
      case 'update': {
        const res = await call(
          user,
          kind,
          'PUT',
          `/contracts/${pick([...own.contracts])}`,
          n % 2 ? { status: pick(STATUSES) } : { title: `${own.tag} ${pick(WORDS)} agreement ${n} (revised)` },
        );
        this.expect(user, kind, res, 200);
        return;
      }
      case 'chat': {
        const res = await call<{ message: { content: string; citations: Array<{ title: string }> } }>(user, kind, 'POST', '/chat/send', {
          message: `What notice period applies to the ${pick(WORDS)} services?`,
          stream: false,
        });
        if (!this.expect(user, kind, res, 200)) return;
        this.checkText(user, 'chat answer', res!.body?.message.content);
        for (const c of res!.body?.message.citations ?? []) this.checkText(user, 'chat citation', c.title);
        return;
      }
      case 'chat_sse': {
        const res = await call<never>(user, kind, 'POST', '/chat/send', {
          message: `Which ${pick(WORDS)} agreements can be ended, and how?`,
          stream: true,
        });
        if (!this.expect(user, kind, res, 200)) return;
        const events = res!.text
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => JSON.parse(l.slice(6)) as { type: string; content?: string; sources?: Array<{ title: string }> });
        if (events.at(-1)?.type !== 'done')
          violation(`chat_sse by user ${user.index}: the stream did not end with done (${events.at(-1)?.type})`);
        this.checkText(user, 'streamed answer', events.map((e) => e.content ?? '').join(''));
        for (const e of events) for (const c of e.sources ?? []) this.checkText(user, 'streamed citation', c.title);
        return;
      }
      case 'upload': {
        const file = pick(this.files[user.org]!);
        const form = new FormData();
        form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
        form.append('category', n % 4 === 0 ? 'policy' : 'contract');
        const res = await call<ListItem>(user, kind, 'POST', '/documents/upload', form);
        if (this.expect(user, kind, res, 201) && res!.body?.id) own.documents.add(res!.body.id);
        return;
      }
      case 'documents': {
        const res = await call<{ documents: Array<ListItem & { filename: string }> }>(user, kind, 'GET', '/documents?page_size=20');
        if (!this.expect(user, kind, res, 200)) return;
        this.checkIds(
          user,
          'document',
          res!.body?.documents.map((d) => ({ id: d.id, title: d.filename })),
        );
        return;
      }
      case 'document_foreign': {
        const res = await call(user, kind, 'GET', `/documents/${pick([...this.foreignOrg(user).documents])}`);
        if (res && res.status !== 404 && res.status !== 429)
          violation(`leak: user ${user.index} read another organization's document: ${res.status}`);
        return;
      }
      case 'setup':
        return;
    }
  }
}

/** One user's requests at a steady rate, a few in flight at most (a slow answer delays the next). */
async function drive(user: User, traffic: Traffic, until: number): Promise<void> {
  const interval = 60000 / rateOf(user.index);
  let next = performance.now() + Math.random() * interval;
  const inFlight = new Set<Promise<void>>();
  // Stops at the end of the run even when slow answers left the schedule behind.
  while (next < until && performance.now() < until) {
    const wait = next - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= MAX_IN_FLIGHT_PER_USER) await Promise.race(inFlight);
    const p: Promise<void> = traffic
      .act(user)
      .catch((err: unknown) => violation(`load client error: ${(err as Error).stack}`))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    next += interval;
  }
  await Promise.all(inFlight);
}

// ---------------------------------------------------------------- checks after the run

/** Per user and limiter window (grouped by X-RateLimit-Reset): the limit holds exactly. */
function checkRateLimits(users: User[]): { windows: number; fullWindows: number; maxPassed: number } {
  let windows = 0;
  let fullWindows = 0;
  let maxPassed = 0;
  for (const user of users) {
    const mine = samples.filter((s) => s.user === user.index).sort((a, b) => (a.reset ?? 0) - (b.reset ?? 0));
    for (const s of mine) {
      if (s.limit !== LIMIT || s.remaining === null || s.reset === null)
        violation(`user ${user.index} ${s.kind} ${s.status}: X-RateLimit headers missing or wrong (limit ${s.limit})`);
      if (s.status === 429) {
        const retry = Number(s.retryAfter);
        if (!Number.isInteger(retry) || retry < 1 || retry > LIMIT)
          violation(`user ${user.index}: a 429 without a valid Retry-After (${s.retryAfter})`);
        else if (s.reset !== null && Math.abs(s.at / 1000 + retry - s.reset) > 2)
          violation(`user ${user.index}: Retry-After ${retry} s does not match X-RateLimit-Reset`);
      }
    }
    // A window's reset is one instant; the header rounds it up to a second, so one second apart is the same window.
    const groups: Sample[][] = [];
    for (const s of mine.filter((x) => x.reset !== null)) {
      const last = groups.at(-1);
      if (last && s.reset! - last[0]!.reset! <= 1) last.push(s);
      else groups.push([s]);
    }
    for (const g of groups) {
      windows++;
      const passed = g.filter((s) => s.status !== 429);
      const refused = g.length - passed.length;
      maxPassed = Math.max(maxPassed, passed.length);
      if (passed.length > LIMIT) violation(`user ${user.index}: ${passed.length} requests passed in one window (limit ${LIMIT})`);
      if (refused && passed.length < LIMIT) violation(`user ${user.index}: refused after only ${passed.length} of ${LIMIT} in a window`);
      if (refused) fullWindows++;
      const remaining = new Set(passed.map((s) => s.remaining));
      if (remaining.size !== passed.length)
        violation(
          `user ${user.index}: X-RateLimit-Remaining repeats within a window (${passed.length} passed, ${remaining.size} distinct)`,
        );
    }
  }
  return { windows, fullWindows, maxPassed };
}

/** Ids shown to a user that no answer of its organization named: the store says whose they are. */
async function checkPendingIds(orgs: Org[]) {
  for (const p of pendingIds) {
    const own = p.kind === 'contract' ? orgs[p.org]!.contracts : orgs[p.org]!.documents;
    if (own.has(p.id)) continue;
    // A create whose answer was lost (timed out) is still the organization's own record.
    const found =
      p.kind === 'contract'
        ? await Contract.findById(p.id, { organization_id: 1 }).lean()
        : await Document.findById(p.id, { organization_id: 1 }).lean();
    const owner = found?.organization_id.toHexString();
    if (owner !== orgs[p.org]!.id)
      violation(
        `leak: user ${p.user} (org ${p.org}) was shown ${p.kind} ${p.id} of ${owner ? `organization ${owner}` : 'no organization'}`,
      );
  }
}

// ---------------------------------------------------------------- memory

interface MemorySample {
  t: number;
  api: number;
  worker: number;
}

/** Least-squares slope in MB per minute. */
function slope(points: Array<{ t: number; v: number }>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mv = points.reduce((a, p) => a + p.v, 0) / n;
  const num = points.reduce((a, p) => a + (p.t - mt) * (p.v - mv), 0);
  const den = points.reduce((a, p) => a + (p.t - mt) ** 2, 0);
  return den ? (num / den) * 60 : 0;
}

function memoryReport(series: MemorySample[], which: 'api' | 'worker') {
  const values = series.map((s) => ({ t: s.t, v: s[which] }));
  const secondHalf = values.slice(Math.floor(values.length / 2));
  const r = {
    start: values[0]?.v ?? NaN,
    peak: Math.max(...values.map((v) => v.v)),
    end: values.at(-1)?.v ?? NaN,
    slope: slope(values),
    secondHalfSlope: slope(secondHalf),
  };
  // A leak keeps climbing past the first half's peak; a heap settling in (GC sawtooth) does not.
  // Too few samples to judge a trend on a short (development) run.
  const firstHalfPeak = Math.max(...values.slice(0, values.length - secondHalf.length).map((v) => v.v));
  if (secondHalf.length >= 6 && r.secondHalfSlope > MAX_SLOPE_MB_PER_MIN && r.end > firstHalfPeak * (1 + MAX_GROWTH_OVER_FIRST_PEAK)) {
    violation(
      `${which} memory grows ${r.secondHalfSlope.toFixed(1)} MB/min over the second half (limit ${MAX_SLOPE_MB_PER_MIN}) and ends at ${r.end.toFixed(0)} MB, above the first half's peak ${firstHalfPeak.toFixed(0)} MB by more than ${MAX_GROWTH_OVER_FIRST_PEAK * 100} %`,
    );
  }
  return r;
}

// ---------------------------------------------------------------- report

function printSummary(
  seconds: number,
  users: User[],
  limits: ReturnType<typeof checkRateLimits>,
  series: MemorySample[],
  docs: Record<string, number>,
) {
  const traffic = samples.filter((s) => s.kind !== 'setup');
  console.log(
    `\n# Load test: ${seconds} s, ${users.length} users in ${ORGS.length} organizations, ${traffic.length} requests (${(traffic.length / seconds).toFixed(1)} req/s)`,
  );
  console.log('\n| kind | requests | statuses | p50 ms | p99 ms |\n|---|---|---|---|---|');
  for (const [kind] of MIX) {
    const mine = traffic.filter((s) => s.kind === kind);
    const statuses = new Map<number, number>();
    for (const s of mine) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
    const served = mine.filter((s) => s.status !== 429).map((s) => s.ms);
    const st = [...statuses]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    console.log(`| ${kind} | ${mine.length} | ${st} | ${percentile(served, 50).toFixed(0)} | ${percentile(served, 99).toFixed(0)} |`);
  }
  const limited = traffic.filter((s) => s.status === 429);
  const over = users.filter((u) => rateOf(u.index) > LIMIT).map((u) => u.index);
  const fiveXx = traffic.filter((s) => s.status >= 500).length;
  console.log(`\n5xx: ${fiveXx}; transport errors: ${transportErrors}`);
  console.log(
    `429: ${limited.length} (${limited.filter((s) => over.includes(s.user)).length} to the ${over.length} users driven at ${rateOf(2)}/min, ${limited.filter((s) => !over.includes(s.user)).length} to the others at ${rateOf(0)}/min)`,
  );
  console.log(
    `rate-limit windows: ${limits.windows} (${limits.fullWindows} used up), most requests passed in one window: ${limits.maxPassed} (limit ${LIMIT})`,
  );
  console.log(
    `documents uploaded: ${Object.entries(docs)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log(
    `cross-organization probes: ${traffic.filter((s) => s.kind.endsWith('_foreign')).length} reads/updates of another organization's ids, ${traffic.filter((s) => s.kind === 'list_search').length} searches (half for another organization's tag)`,
  );
  const api = memoryReport(series, 'api');
  const worker = memoryReport(series, 'worker');
  const fmt = (r: typeof api) =>
    `start ${r.start.toFixed(0)} MB, peak ${r.peak.toFixed(0)} MB, end ${r.end.toFixed(0)} MB, slope ${r.slope.toFixed(1)} MB/min (second half ${r.secondHalfSlope.toFixed(1)} MB/min)`;
  console.log(`\nRSS API:    ${fmt(api)}\nRSS worker: ${fmt(worker)}`);
  console.log(
    `RSS series (s: API/worker MB): ${series.map((s) => `${s.t.toFixed(0)}: ${s.api.toFixed(0)}/${s.worker.toFixed(0)}`).join(', ')}`,
  );
}

// ---------------------------------------------------------------- main

async function filesFor(tag: string) {
  const clause = (i: number) =>
    `${tag} clause ${i}: either party may terminate the services with 30 days' written notice; fees are due within 45 days.`;
  return [
    { name: `${tag}-terms.txt`, type: 'text/plain', bytes: Buffer.from(Array.from({ length: 40 }, (_, i) => clause(i)).join('\n')) },
    {
      name: `${tag}-schedule.pdf`,
      type: 'application/pdf',
      bytes: await makePdf([
        [`${tag} schedule`, clause(1), clause(2)],
        [clause(3), clause(4)],
      ]),
    },
  ];
}

async function main() {
  const bench = await openBench('load', { RATE_LIMIT_DEFAULT_PER_MINUTE: String(LIMIT), LOG_LEVEL: 'warn' });
  // The processes' warnings and errors are kept, to explain any violation afterwards.
  const logs = path.join(repoRoot, '.stack', 'load-logs');
  mkdirSync(logs, { recursive: true });
  const apiLog = path.join(logs, `${run}-api.log`);
  const workerLog = path.join(logs, `${run}-worker.log`);
  const apiProc = await startApiProcess(bench.env, apiLog);
  const worker = startWorkerProcess(bench.env, workerLog);
  base = `${apiProc.url}/api/v1`;
  try {
    await waitForWorker(bench);
    const { users, orgs } = await setUp();
    const files = await Promise.all(orgs.map((o) => filesFor(o.tag)));
    const traffic = new Traffic(orgs, files);
    console.log(`[load] ${users.length} users in ${orgs.length} organizations; ${SECONDS} s of traffic against ${apiProc.url}`);

    const series: MemorySample[] = [];
    const t0 = performance.now();
    const sample = () =>
      series.push({ t: (performance.now() - t0) / 1000, api: memoryOf(apiProc.pid).rss, worker: memoryOf(worker.pid).rss });
    sample();
    const sampler = setInterval(() => {
      sample();
      const last = series.at(-1)!;
      console.log(
        `[load] ${last.t.toFixed(0)} s: ${samples.length} requests, RSS API ${last.api.toFixed(0)} MB, worker ${last.worker.toFixed(0)} MB`,
      );
    }, SAMPLE_EVERY_MS);
    const until = t0 + SECONDS * 1000;
    await Promise.all(users.map((u) => drive(u, traffic, until)));
    clearInterval(sampler);
    sample();

    // Every upload is ingested: give the worker time to finish the last ones.
    const ids = orgs.flatMap((o) => [...o.documents]);
    const deadline = Date.now() + 180000;
    while (Date.now() < deadline && (await Document.countDocuments({ _id: trusted({ $in: ids }), status: 'processing' })))
      await new Promise((r) => setTimeout(r, 2000));
    const docs: Record<string, number> = { total: ids.length };
    for (const status of ['ready', 'processing', 'failed'] as const)
      docs[status] = await Document.countDocuments({ _id: trusted({ $in: ids }), status });
    if (docs.total !== docs.ready)
      violation(`uploads not ingested: ${docs.processing} still processing 3 min after the run, ${docs.failed} failed`);

    await checkPendingIds(orgs);
    const limits = checkRateLimits(users);
    printSummary(SECONDS, users, limits, series, docs);
  } finally {
    await Promise.all([worker.stop(), apiProc.stop()]);
    await closeBench(bench);
    rmSync(path.resolve(repoRoot, bench.config.UPLOAD_DIR), { recursive: true, force: true });
  }
  const errors = readFileSync(apiLog, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"level":50'));
  console.log(
    `\nAPI errors logged: ${errors.length}${errors.length ? `; first: ${errors[0]!.slice(0, 1500)}` : ''}\nLogs: ${apiLog}, ${workerLog}`,
  );
  if (violations.length) throw new Error(`${violations.length} violations:\n${violations.join('\n')}`);
  console.log('\nNo violations.');
}

runBench(main);
