/**
 * Exclusive changes under races (`npm run test:races`, and part of `npm test`): each change
 * below is sent from 8 or more requests at the same moment, 20 rounds, through HTTP, against
 * the store the tests run on (FerretDB locally and in CI). Of each round exactly one request
 * succeeds; the others get the documented refusal and leave no trace. What keeps them apart is
 * platform/claims.ts: on FerretDB 1.24 a conditional update alone let several through.
 */
import { expect } from 'chai';
import { Types, trusted } from 'mongoose';
import { api as directApi, type ApiResponse, type RequestOptions } from '../../support/http';
import { addMember, enableMfa, fromIp, nextTotp, signUp, uniqueIp, type LoginBody, type TestUser } from '../../support/auth';
import { linkToken, mailbox, uniqueAddress, type ReceivedMail } from '../../support/mailbox';
import { waitFor } from '../../support/processes';
import { testEnv, withSecondApi } from '../../support/env';
import { Event } from '../../../models/event';
import { RefreshToken } from '../../../models/refresh-token';
import { Signature } from '../../../models/signature';
import { Approval } from '../../../models/approval';
import { escalateApproval } from '../../../services/approvals/approval-reminders';
import { sha256Hex } from '../../../platform/security/crypto';

const ROUNDS = 20;
/** The rounds send far more than a person would: the request limits are lifted, as they are not what is tested. */
const UNLIMITED = { RATE_LIMIT_DEFAULT_PER_MINUTE: 1_000_000, RATE_LIMIT_ORGANIZATION_PER_MINUTE: 1_000_000 };
let base: string | undefined;
const api = <T = Record<string, unknown>>(method: string, path: string, opts: RequestOptions = {}) =>
  directApi<T>(method, path, { ...opts, base: opts.base ?? base });

/** Runs a test against a second API on the run's engines whose request limits are lifted. */
const unlimited =
  (fn: () => Promise<void>, overrides: Record<string, number> = {}) =>
  () =>
    withSecondApi({ ...UNLIMITED, ...overrides }, async (b) => {
      base = b;
      try {
        await fn();
      } finally {
        base = undefined;
      }
    });
const TABS = 8;

const ok = (r: ApiResponse<unknown>) => r.status >= 200 && r.status < 300;

/** Sends every request at the same moment; answers in the order given. */
const atOnce = <T>(requests: Array<() => Promise<T>>): Promise<T[]> => Promise.all(requests.map((send) => send()));

/** Exactly one success; every other answer one of `refusals` (status, or status and X-Error-Code), or 409 `change_in_progress`. */
function expectOneWinner(round: number, answers: Array<ApiResponse<unknown>>, refusals: Array<number | [number, string]>) {
  const summary = answers.map((a) => `${a.status} ${a.headers.get('x-error-code') ?? ''}`.trim()).join(', ');
  expect(answers.filter(ok).length, `round ${round}: one success of ${answers.length} (${summary})`).to.equal(1);
  for (const a of answers.filter((x) => !ok(x))) {
    const code = a.headers.get('x-error-code') ?? '';
    // A loser that found the record still held after waiting is told so, and wrote nothing either.
    const allowed =
      code === 'change_in_progress' || refusals.some((r) => (typeof r === 'number' ? r === a.status : r[0] === a.status && r[1] === code));
    expect(allowed, `round ${round}: a loser answered ${a.status} ${code} ${a.text}`).to.equal(true);
  }
  return answers.findIndex(ok);
}

const post = <T = Record<string, unknown>>(u: TestUser, path: string, body: unknown = {}) =>
  api<T & { detail?: string }>('POST', path, { token: u.token, body });

async function createContract(u: TestUser, body: Record<string, unknown> = {}): Promise<string> {
  const res = await post<{ id: string }>(u, '/contracts', {
    title: `Race ${new Types.ObjectId().toHexString()}`,
    type: 'service_agreement',
    counterparty: 'Northwind',
    content: 'The Supplier provides hosting services.',
    ...body,
  });
  expect(res.status, res.text).to.equal(201);
  return res.body.id;
}

describe('exclusive changes under races', function () {
  this.timeout(300000);
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    owner = await signUp();
    [admin, member] = await Promise.all([addMember(owner, 'admin'), addMember(owner, 'member')]);
  });

  it(
    'a signer signs or declines from 8 tabs: one act, one audit entry, one event, and the chain verifies',
    unlimited(async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const signerIp = uniqueIp();
        const contractId = await createContract(owner);
        const sent = await post<{ id: string; signers: Array<{ signing_url: string }> }>(owner, '/signatures', {
          contract_id: contractId,
          signers: [
            { name: 'Ann Signer', email: 'ann@example.test' },
            { name: 'Bo Signer', email: 'bo@example.test' },
          ],
        });
        expect(sent.status, sent.text).to.equal(201);
        const token = sent.body.signers[0]!.signing_url.split('/').pop()!;
        // Half the tabs sign and half decline, interleaved: one act of either kind wins.
        const answers = await atOnce(
          Array.from(
            { length: TABS },
            (_, i) => () =>
              api('POST', `/signatures/sign/${token}${i % 2 ? '/decline' : ''}`, {
                body: i % 2 ? { reason: `Tab ${i} declines` } : { signature_text: `Ann, tab ${i}` },
                headers: fromIp(signerIp),
              }),
          ),
        );
        const winner = expectOneWinner(round, answers, [
          [410, 'signing_link_used'],
          [410, 'signature_request_closed'],
        ]);
        const stored = await Signature.findById(sent.body.id).lean();
        const acts = stored!.audit_trail.filter((e) => e.type === 'signed' || e.type === 'declined');
        expect(
          acts.map((e) => e.type),
          `round ${round}: one act in the trail`,
        ).to.deep.equal([winner % 2 ? 'declined' : 'signed']);
        expect(acts[0]!.detail).to.equal(winner % 2 ? `Tab ${winner} declines` : `Ann, tab ${winner}`);
        const events = await Event.countDocuments({
          resource_id: sent.body.id,
          type: trusted({ $in: ['signature.completed', 'signature.declined'] }),
        });
        expect(events, `round ${round}: one event`).to.equal(1);
        const verify = await api<{ reasons?: string[] }>('GET', `/signatures/${sent.body.id}/verify`, { token: owner.token });
        expect(verify.status).to.equal(200);
        expect(
          (verify.body.reasons ?? []).filter((r) => r.includes('audit trail')),
          `round ${round}: the chain verifies`,
        ).to.deep.equal([]);
      }
    }),
  );

  describe('approval decisions', () => {
    before(
      unlimited(async () => {
        const single = await post(owner, '/settings/approval-policies', {
          name: 'Finance',
          step: 1,
          conditions: { types: ['service_agreement'] },
          approvers: { kind: 'role', role: 'admin' },
          escalation_days: 3,
          escalate_to_role: 'owner',
        });
        expect(single.status, single.text).to.equal(201);
        const two = await post(owner, '/settings/approval-policies', {
          name: 'Board',
          step: 1,
          conditions: { types: ['lease'] },
          approvers: { kind: 'any_n_of', n: 2, user_ids: [owner.user.id, admin.user.id] },
        });
        expect(two.status, two.text).to.equal(201);
      }),
    );

    /** A member's contract of `type`, with its approval requested by that member. */
    async function requested(type: string) {
      const contractId = await createContract(member, { type });
      const started = await post<{ approval: { id: string; status: string } }>(member, `/contracts/${contractId}/approvals`);
      expect(started.status, started.text).to.be.oneOf([200, 201]);
      expect(started.body.approval.status).to.equal('pending');
      return { contractId, approvalId: started.body.approval.id };
    }

    const decisionEvents = (approvalId: string) =>
      Event.find({ resource_id: approvalId, type: trusted({ $in: ['approval.approved', 'approval.rejected'] }) }).lean();

    it(
      'approve and reject of one step at once, by two approvers from several tabs: one decision counts, a rejection is never erased',
      unlimited(async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const { approvalId } = await requested('service_agreement');
          const tabs = [owner, admin].flatMap((u) => ['approve', 'reject', 'approve', 'reject'].map((d) => ({ u, d })));
          const answers = await atOnce(
            tabs.map(
              ({ u, d }) =>
                () =>
                  post(u, `/approvals/${approvalId}/${d}`, { comment: `${d} by ${u.user.role}` }),
            ),
          );
          const winner = tabs[expectOneWinner(round, answers, [[409, 'approval_closed']])]!;
          const stored = await Approval.findById(approvalId).lean();
          expect(stored!.status, `round ${round}: the request ends as the one decision said`).to.equal(
            winner.d === 'approve' ? 'approved' : 'rejected',
          );
          expect(stored!.groups[0]!.decisions.map((x) => x.comment)).to.deep.equal([`${winner.d} by ${winner.u.user.role}`]);
          expect((await decisionEvents(approvalId)).length, `round ${round}: one decision event`).to.equal(1);
        }
      }),
    );

    it(
      'one approver deciding from 8 tabs on a step that needs two approvals counts once',
      unlimited(async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const { approvalId } = await requested('lease');
          const answers = await atOnce(
            Array.from({ length: TABS }, (_, i) => () => post(owner, `/approvals/${approvalId}/approve`, { comment: `tab ${i}` })),
          );
          expectOneWinner(round, answers, [[409, 'approval_already_decided']]);
          const stored = await Approval.findById(approvalId).lean();
          expect(stored!.status).to.equal('pending');
          expect(stored!.groups[0]!.decisions, `round ${round}: one decision stored`).to.have.length(1);
          expect((await decisionEvents(approvalId)).length, `round ${round}: one approval event`).to.equal(1);
        }
      }),
    );

    it(
      'overrides and an escalation racing decisions: one of the override and the decision wins, and nothing erases the other',
      unlimited(async () => {
        const s = testEnv().services;
        for (let round = 0; round < ROUNDS; round++) {
          const { contractId, approvalId } = await requested('service_agreement');
          const tabs = [
            // Approvals (an override after a rejection is allowed: it is a new request beside the rejected one).
            ...Array.from({ length: 4 }, () => () => post(admin, `/approvals/${approvalId}/approve`)),
            ...Array.from(
              { length: 4 },
              () => () => post(owner, `/contracts/${contractId}/approvals/override`, { reason: 'Board said yes' }),
            ),
          ];
          const escalations = Array.from({ length: 2 }, () =>
            escalateApproval(s, { organizationId: owner.organizationId, approvalId, step: 1 }).catch(() => false),
          );
          const answers = await atOnce(tabs);
          await Promise.all(escalations);
          const winner = expectOneWinner(round, answers, [[409, 'approval_closed']]);
          const stored = await Approval.findById(approvalId).lean();
          const group = stored!.groups[0]!;
          if (winner >= 4) {
            expect(stored!.status, `round ${round}: overridden`).to.equal('overridden');
            expect(group.decisions, `round ${round}: no decision beside the override`).to.have.length(0);
          } else {
            expect(stored!.status, `round ${round}: approved`).to.equal('approved');
            expect(stored!.override ?? null, `round ${round}: no override beside the decision`).to.equal(null);
            expect(group.decisions, `round ${round}: the decision is kept`).to.have.length(1);
          }
          // An escalation that landed is kept beside the decision (neither write erased the other).
          const escalated = await Event.countDocuments({ resource_id: approvalId, type: 'approval.escalated' });
          expect(escalated, `round ${round}: escalated at most once`).to.be.at.most(1);
          expect(!!group.escalated_at, `round ${round}: the escalation event and the stored escalation agree`).to.equal(escalated === 1);
        }
      }),
    );
  });

  it(
    'a refresh token presented 8 times: one new pair, and the whole family revoked as reuse',
    unlimited(async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const login = await api<LoginBody>('POST', '/auth/login', {
          body: { email: member.email, password: member.password },
          headers: fromIp(uniqueIp()),
        });
        expect(login.status, login.text).to.equal(200);
        const ip = uniqueIp();
        const answers = await atOnce(
          Array.from(
            { length: TABS },
            () => () => api<LoginBody>('POST', '/auth/refresh', { body: { refresh_token: login.body.refresh_token }, headers: fromIp(ip) }),
          ),
        );
        const winner = answers[expectOneWinner(round, answers, [401])]!;
        const family = (await RefreshToken.findOne({ token_hash: sha256Hex(login.body.refresh_token) }).lean())!.family_id;
        expect(await RefreshToken.countDocuments({ family_id: family }), `round ${round}: one new token in the family`).to.equal(2);
        const next = await api('POST', '/auth/refresh', { body: { refresh_token: winner.body.refresh_token }, headers: fromIp(ip) });
        expect(next.status, `round ${round}: the family is revoked`).to.equal(401);
      }
    }),
  );

  it(
    'a TOTP code sent 8 times at once passes once',
    unlimited(async () => {
      // Each round needs a user whose next step is unused: made beforehand, a few at a time.
      const users: Array<{ u: TestUser; secret: string }> = [];
      for (let i = 0; i < ROUNDS; i += 5)
        users.push(
          ...(await Promise.all(
            Array.from({ length: 5 }, async () => {
              const u = await signUp({ verified: false });
              return { u, secret: (await enableMfa(u)).secret };
            }),
          )),
        );
      for (let round = 0; round < ROUNDS; round++) {
        const { u, secret } = users[round]!;
        const code = await nextTotp(secret);
        // Replacing the enrolled secret takes a current code: each passing request would start a new enrollment.
        const answers = await atOnce(Array.from({ length: TABS }, () => () => post(u, '/auth/mfa/setup', { code })));
        expectOneWinner(round, answers, [[401, 'mfa_proof_wrong'], [403, 'mfa_proof_wrong'], [400, 'mfa_proof_wrong'], 429]);
      }
    }),
  );

  it(
    'a password-reset token used by 8 requests at once resets once',
    unlimited(async () => {
      const u = await signUp({ verified: false });
      for (let round = 0; round < ROUNDS; round++) {
        const asked = await api('POST', '/auth/password/reset-request', { body: { email: u.email }, headers: fromIp(uniqueIp()) });
        expect(asked.status).to.equal(202);
        let resets: ReceivedMail[] = [];
        await waitFor(
          async () => (resets = (await mailbox(u.email)).filter((m) => m.subject === 'Reset your password')).length > round,
          30000,
          `reset mail ${round}`,
        );
        const token = linkToken(resets.at(-1)!, 'reset-password');
        const ip = uniqueIp();
        const passwords = Array.from({ length: TABS }, (_, i) => `round-${round}-tab-${i}-password`);
        const answers = await atOnce(
          passwords.map((password) => () => api('POST', '/auth/password/reset', { body: { token, password }, headers: fromIp(ip) })),
        );
        const winner = expectOneWinner(round, answers, [400]);
        if (round === 0) {
          // The loser's password was never set: only the winner's logs in.
          const login = (password: string) =>
            api('POST', '/auth/login', { body: { email: u.email, password }, headers: fromIp(uniqueIp()) });
          expect((await login(passwords[winner]!)).status).to.equal(200);
          expect((await login(passwords[(winner + 1) % TABS]!)).status).to.equal(401);
        }
      }
    }),
  );

  it(
    'an invitation token used by 8 registrations at once makes one member',
    unlimited(async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const email = uniqueAddress('invited');
        const invite = await post<{ id: string; invite_token: string }>(owner, '/team/invite', { email, role: 'member' });
        expect(invite.status, invite.text).to.equal(201);
        const answers = await atOnce(
          Array.from(
            { length: TABS },
            (_, i) => () =>
              api('POST', '/auth/register', {
                body: { email, password: `invited-password-${i}`, full_name: `Tab ${i}`, invite_token: invite.body.invite_token },
                headers: fromIp(uniqueIp()),
              }),
          ),
        );
        expectOneWinner(round, answers, [400, [409, 'email_taken']]);
        expect(
          await Event.countDocuments({ type: 'team.member_joined', 'data.invite_id': invite.body.id }),
          `round ${round}: one join`,
        ).to.equal(1);
      }
    }),
  );

  it(
    'cancelling a running import from 8 requests at once: one cancels, the others are told it ended',
    unlimited(
      async () => {
        const rows = ['title,type,counterparty', ...Array.from({ length: 200 }, (_, i) => `Bulk ${i},nda,Party ${i}`)].join('\r\n');
        for (let round = 0; round < ROUNDS; round++) {
          const form = new FormData();
          form.append('records', new Blob([`${rows}\r\n`], { type: 'text/plain' }), 'contracts.csv');
          const res = await fetch(`${base!}/imports`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
          const started = (await res.json()) as { id: string };
          expect(res.status).to.equal(202);
          const answers = await atOnce(Array.from({ length: TABS }, () => () => post(owner, `/imports/${started.id}/cancel`)));
          expectOneWinner(round, answers, [[409, 'import_not_running']]);
          await testEnv()
            .services.temporal.workflow.getHandle(`import-${started.id}`)
            .result()
            .catch(() => undefined);
          const after = await api<{ status: string }>('GET', `/imports/${started.id}`, { token: owner.token });
          expect(after.body.status, `round ${round}: cancelled`).to.equal('cancelled');
          expect(
            await Event.countDocuments({ resource_id: started.id, type: trusted({ $in: ['import.completed', 'import.failed'] }) }),
          ).to.equal(0);
        }
      },
      { IMPORT_BATCH_ROWS: 20 },
    ),
  );

  it(
    'a reindex of one organization started from 8 requests at once runs once; the others are told which runs, also after it ends',
    unlimited(async () => {
      const owners = [];
      for (let i = 0; i < ROUNDS; i += 5) owners.push(...(await Promise.all(Array.from({ length: 5 }, () => signUp({ verified: false })))));
      let last: { owner: TestUser; workflowId: string } | undefined;
      for (let round = 0; round < ROUNDS; round++) {
        const o = owners[round]!;
        const answers = await atOnce(Array.from({ length: TABS }, () => () => post<{ workflow_id: string }>(o, '/admin/search/reindex')));
        const winner = answers[expectOneWinner(round, answers, [[409, 'search_reindex_running']])]!;
        for (const a of answers.filter((x) => x.status === 409)) expect(a.body.detail).to.contain(winner.body.workflow_id);
        last = { owner: o, workflowId: winner.body.workflow_id };
      }
      // Ended, it still holds its organization for the cooldown.
      await testEnv().services.temporal.workflow.getHandle(last!.workflowId).result();
      const again = await post(last!.owner, '/admin/search/reindex');
      expect([again.status, again.headers.get('x-error-code')]).to.deep.equal([409, 'search_reindex_running']);
      expect(again.body.detail).to.contain(last!.workflowId);
      expect(Number(again.headers.get('retry-after'))).to.be.within(1, testEnv().config.SEARCH_REINDEX_COOLDOWN_SECONDS);
    }),
  );
});
