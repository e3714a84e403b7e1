/**
 * Renewal deadlines: each contract with a renewal deadline ahead has a workflow
 * (`renewal-<contractId>`, workflows/renewal-deadline.ts) that reminds the contract's owner
 * before its opt-out deadline, as `contract.renewal_due` events (`days_left`, `deadline`) and mail. Here: starting
 * or re-planning it, the plan it follows, the reminder itself (once per contract, deadline
 * and day), and the relay consumer that extracts terms again when a contract's text or dates
 * change.
 */
import { Types, trusted } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { recordEvent } from '../../platform/outbox/record-event';
import { signalAllRunning, signalWorkflow, startWorkflow } from '../../platform/temporal/client';
import type { EventConsumer } from '../../platform/outbox/relay';
import { queueMail } from '../mail/queue';
import { renewalDueMail } from '../mail/messages';
import { Contract, contractEventData } from '../../models/contract';
import { ContractTerms } from '../../models/contract-terms';
import { Event } from '../../models/event';
import { Organization } from '../../models/organization';
import { User } from '../../models/user';
import { contractTerms, contractTermsWorkflowId } from '../../workflows/contract-terms.shared';
import {
  renewalDeadline,
  renewalWorkflowId,
  rescheduleSignal,
  upcomingReminders,
  type RenewalDeadlineInput,
  type RenewalPlan,
} from '../../workflows/renewal-deadline.shared';
import { endDateOf, termsView } from './contract-terms';

export const DEFAULT_REMINDER_DAYS = [90, 60, 30, 7];
/** Contracts in these states are past renewing. */
const CLOSED = new Set(['expired', 'completed']);

/**
 * After the contract's terms or dates changed: with reminders to come, starts its reminder
 * workflow or tells the running one to plan again; without, only tells a running one, which
 * then ends. Most contracts have no renewal deadline and so no workflow waiting for ever.
 */
export async function scheduleRenewalReminders(s: Engines, organizationId: string, contractId: string): Promise<void> {
  const plan = await planRenewalReminders({ organizationId, contractId });
  const workflowId = renewalWorkflowId(contractId);
  if (!plan || !upcomingReminders(plan, Date.now()).length) {
    await signalWorkflow(s, workflowId, rescheduleSignal);
    return;
  }
  await startWorkflow(s, renewalDeadline, {
    workflowId,
    args: [{ organizationId, contractId }],
    signal: { signal: rescheduleSignal, args: [] },
    organizationId,
    recordId: contractId,
  });
}

/**
 * Runs started before 0.6.0 wait for ever for a signal once they have nothing to remind of
 * (a contract without a deadline had one too). One batch signal, at most once per deployment's
 * queues, makes every running one plan again: those with nothing left end, the others carry on.
 */
export async function replanRenewalRuns(s: Engines): Promise<boolean> {
  return signalAllRunning(s, renewalDeadline, rescheduleSignal, {
    jobId: `renewal-replan-0.6.0-${s.config.TEMPORAL_TASK_QUEUE}`,
    reason: 'renewal runs started before 0.6.0 plan again, and end when nothing is left to remind of',
    perSecond: 50,
  });
}

const sentFilter = (organizationId: string, contractId: string, deadline: string) => ({
  organization_id: new Types.ObjectId(organizationId),
  type: 'contract.renewal_due' as const,
  resource_id: contractId,
  'data.deadline': deadline,
});

/** The deadline to remind about, the organization's reminder days and those already sent; null when the contract is gone. */
export async function planRenewalReminders({ organizationId, contractId }: RenewalDeadlineInput): Promise<RenewalPlan | null> {
  const contract = await Contract.findOne({ _id: contractId, organization_id: organizationId });
  if (!contract) return null;
  const [terms, org] = await Promise.all([
    ContractTerms.findOne({ organization_id: contract.organization_id, contract_id: contract._id }),
    Organization.findById(organizationId),
  ]);
  const days = org?.renewal_reminder_days?.length ? [...org.renewal_reminder_days] : DEFAULT_REMINDER_DAYS;
  const deadline = CLOSED.has(contract.status) ? null : (terms?.opt_out_deadline ?? null);
  const sent = deadline
    ? (await Event.find(sentFilter(organizationId, contractId, deadline)).lean()).map((e) =>
        Number((e.data as { days_left?: unknown }).days_left),
      )
    : [];
  return { deadline, days, sent };
}

/**
 * One reminder: the event, and mail to the contract's owner. Skipped when already recorded for
 * this deadline and day (a retried activity) or when the deadline has moved since it was planned.
 */
export async function sendRenewalReminder(
  s: Engines,
  { organizationId, contractId, deadline, days }: RenewalDeadlineInput & { deadline: string; days: number },
): Promise<boolean> {
  const [contract, terms] = await Promise.all([
    Contract.findOne({ _id: contractId, organization_id: organizationId }),
    ContractTerms.findOne({ organization_id: organizationId, contract_id: contractId }),
  ]);
  if (!contract || terms?.opt_out_deadline !== deadline) return false;
  if (await Event.exists({ ...sentFilter(organizationId, contractId, deadline), 'data.days_left': days })) return false;
  const endDate = endDateOf(termsView(contract.id, terms).terms, contract);
  await recordEvent({
    organizationId,
    type: 'contract.renewal_due',
    data: { ...contractEventData(contract), deadline, days_left: days, end_date: endDate },
    actor: { type: 'system', id: null, name: 'renewal reminders' },
    resource: { type: 'contract', id: contract.id },
    summary: `Contract "${contract.title}": notice of non-renewal due by ${deadline} (in ${days} day${days === 1 ? '' : 's'})`,
  });
  const owner = contract.created_by && (await User.findById(contract.created_by));
  if (owner) {
    await queueMail(s, {
      organizationId,
      kind: 'renewal_due',
      to: owner.email,
      dedupeKey: `renewal_due:${contract.id}:${deadline}:${days}`,
      ref: { contract_id: contract.id },
      message: renewalDueMail(s.config.publicBaseUrl, {
        contractId: contract.id,
        title: contract.title,
        counterparty: contract.counterparty,
        deadline,
        daysLeft: days,
        endDate,
      }),
    });
  }
  return true;
}

/** Contract changes that can change its terms or deadline. */
const TERM_FIELDS = new Set(['content', 'end_date', 'start_date', 'status', 'signed_at']);

/** Extracts a changed contract's terms again (workflow `terms-<eventId>`), which re-plans its reminders. */
export const contractTermsConsumer: EventConsumer = {
  name: 'contract-terms',
  async consume(s, event) {
    if (event.type !== 'contract.updated' && event.type !== 'contract.created') return;
    const changed = (event.data as { changed_fields?: unknown }).changed_fields;
    if (event.type === 'contract.updated' && !(Array.isArray(changed) && changed.some((f) => TERM_FIELDS.has(String(f))))) return;
    // A bulk import extracts its contracts' terms itself, many per activity (services/imports/import-phases.ts).
    if (event.type === 'contract.created' && (event.data as { import_id?: unknown }).import_id) return;
    // Created without text, a contract has no terms to find (a document attached later starts
    // its own extraction when it is ready): a read instead of a workflow per contract in a burst.
    if (
      event.type === 'contract.created' &&
      !(await Contract.exists({ _id: event.resource_id, organization_id: event.organization_id, content: trusted({ $gt: '' }) }))
    )
      return;
    const organizationId = event.organization_id.toHexString();
    await startWorkflow(s, contractTerms, {
      workflowId: contractTermsWorkflowId(event.id),
      args: [{ organizationId, contractId: event.resource_id }],
      organizationId,
      recordId: event.resource_id,
    });
  },
};
