/** The workflow bundle: every workflow type the worker runs. */
export { webhookBatchWorkflow, webhookEventWorkflow, webhookDeliveryWorkflow } from './webhook-delivery';
export { documentIngestionWorkflow } from './document-ingestion';
export { syncContractsWorkflow, contractIndexWorkflow } from './contract-index';
export { signatureWorkflow } from './signature';
export { integrationNotificationWorkflow } from './integration-notification';
export { complianceScanWorkflow } from './compliance-scan';
export { integrationSyncWorkflow } from './integration-sync';
export { contractExpirySweepWorkflow, renewalRemindersWorkflow } from './contract-schedules';
export { reembedWorkflow } from './reembed';
export { searchReindexWorkflow } from './search-reindex';
export { mailDeliveryWorkflow } from './mail-delivery';
export { contractDeletionWorkflow } from './contract-deletion';
export { renewalDeadlineWorkflow } from './renewal-deadline';
export { contractTermsWorkflow } from './contract-terms';
// `importWorkflow` is the 0.6 type name, kept so that imports running across an upgrade finish.
export { bulkImportWorkflow, bulkImportWorkflow as importWorkflow } from './import';
export { bulkSendWorkflow } from './bulk-send';
export { approvalWorkflow } from './approval';
export { memberDeprovisionWorkflow } from './member-deprovision';
export { auditExportWorkflow } from './audit-export';
