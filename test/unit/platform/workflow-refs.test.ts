import { expect } from 'chai';
import * as workflows from '../../../workflows';
import { approval } from '../../../workflows/approval.shared';
import { complianceScan } from '../../../workflows/compliance-scan.shared';
import { contractDeletion } from '../../../workflows/contract-deletion.shared';
import { contractIndex, syncContracts } from '../../../workflows/contract-index.shared';
import { contractExpirySweep, renewalReminders } from '../../../workflows/contract-schedules.shared';
import { documentIngestion } from '../../../workflows/document-ingestion.shared';
import { bulkImport } from '../../../workflows/import.shared';
import { integrationNotification } from '../../../workflows/integration-notification.shared';
import { integrationSync } from '../../../workflows/integration-sync.shared';
import { mailDelivery } from '../../../workflows/mail-delivery.shared';
import { memberDeprovision } from '../../../workflows/member-deprovision.shared';
import { reembed } from '../../../workflows/reembed.shared';
import { contractTerms } from '../../../workflows/contract-terms.shared';
import { renewalDeadline } from '../../../workflows/renewal-deadline.shared';
import { signature } from '../../../workflows/signature.shared';
import { webhookBatch } from '../../../workflows/webhook-delivery.shared';

/** Starters name workflows through refs (startWorkflow); each must name a workflow the worker registers. */
describe('workflow refs', () => {
  const refs = [
    approval,
    bulkImport,
    complianceScan,
    contractDeletion,
    contractIndex,
    syncContracts,
    contractExpirySweep,
    renewalReminders,
    documentIngestion,
    integrationNotification,
    integrationSync,
    mailDelivery,
    memberDeprovision,
    reembed,
    signature,
    webhookBatch,
    contractTerms,
    renewalDeadline,
  ];

  it('name registered workflows, each with a kind of its own', () => {
    const registered = Object.entries(workflows)
      .filter(([, v]) => typeof v === 'function')
      .map(([k]) => k);
    expect(registered).to.include.members(refs.map((r) => r.type));
    expect(new Set(refs.map((r) => r.kind)).size).to.equal(refs.length);
  });
});
