import type { Engines } from '../platform/engines';
import { createWebhookActivities } from './webhooks';
import { createDocumentActivities } from './documents';
import { createContractIndexActivities } from './contract-index';
import { createSignatureActivities } from './signatures';
import { createIntegrationActivities } from './integrations';
import { createIntegrationSyncActivities } from './integration-sync';
import { createComplianceActivities } from './compliance';
import { createContractActivities } from './contracts';
import { createReembedActivities } from './reembed';
import { createMailActivities } from './mail';
import { createContractTermsActivities } from './contract-terms';
import { createImportActivities } from './imports';
import { createBulkSendActivities } from './bulk-send';
import { createSearchIndexActivities } from './search-index';
import { createApprovalActivities } from './approvals';
import { createIdentityActivities } from './identity';
import { createAuditActivities } from './audit';

/** Every activity the worker registers, bound to the process's engines. */
export function createActivities(s: Engines) {
  return {
    ...createWebhookActivities(s),
    ...createDocumentActivities(s),
    ...createContractIndexActivities(s),
    ...createSignatureActivities(s),
    ...createIntegrationActivities(s),
    ...createIntegrationSyncActivities(s),
    ...createComplianceActivities(s),
    ...createContractActivities(s),
    ...createReembedActivities(s),
    ...createMailActivities(s),
    ...createContractTermsActivities(s),
    ...createImportActivities(s),
    ...createBulkSendActivities(s),
    ...createSearchIndexActivities(s),
    ...createApprovalActivities(s),
    ...createIdentityActivities(s),
    ...createAuditActivities(s),
  };
}
