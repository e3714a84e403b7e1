import { expect } from 'chai';
import { loadConfig } from '../../../platform/config';
import { priorityOf, taskQueueOf } from '../../../platform/temporal/task-queues';
import { contractIndex, syncContracts } from '../../../workflows/contract-index.shared';
import { contractTerms } from '../../../workflows/contract-terms.shared';
import { renewalDeadline } from '../../../workflows/renewal-deadline.shared';
import { reembed } from '../../../workflows/reembed.shared';
import { documentIngestion } from '../../../workflows/document-ingestion.shared';
import { mailDelivery } from '../../../workflows/mail-delivery.shared';
import { signature } from '../../../workflows/signature.shared';
import { webhookBatch } from '../../../workflows/webhook-delivery.shared';

describe('task queues', () => {
  const config = (env: Record<string, string> = {}) => loadConfig({ NODE_ENV: 'test', TEMPORAL_TASK_QUEUE: 'run-1', ...env });

  it('derive the bulk queue from the configured name, so each run has its own pair', () => {
    expect(taskQueueOf(config(), 'interactive')).to.equal('run-1');
    expect(taskQueueOf(config(), 'bulk')).to.equal('run-1-bulk');
    expect(taskQueueOf(config({ TEMPORAL_BULK_TASK_QUEUE: 'run-1' }), 'bulk')).to.equal('run-1');
  });

  it('put what a person waits for on the interactive queue and what can wait on the bulk one', () => {
    expect([signature, mailDelivery, webhookBatch, documentIngestion].map((r) => r.workClass)).to.deep.equal(Array(4).fill('interactive'));
    expect([contractTerms, renewalDeadline, contractIndex, syncContracts, reembed].map((r) => r.workClass)).to.deep.equal(
      Array(5).fill('bulk'),
    );
  });

  it('key bulk work last in priority and fair per organization; interactive work keeps the defaults', () => {
    expect(priorityOf('bulk', 'org-a')).to.deep.equal({ priorityKey: 5, fairnessKey: 'org-a' });
    expect(priorityOf('interactive', 'org-a')).to.equal(undefined);
  });

  it('let a worker process serve both classes (default) or one', () => {
    expect(config().WORKER_QUEUES).to.deep.equal(['interactive', 'bulk']);
    expect(config({ WORKER_QUEUES: 'bulk' }).WORKER_QUEUES).to.deep.equal(['bulk']);
    expect(config({ WORKER_QUEUES: 'interactive, interactive' }).WORKER_QUEUES).to.deep.equal(['interactive']);
    expect(() => config({ WORKER_QUEUES: 'fast' })).to.throw();
  });
});
