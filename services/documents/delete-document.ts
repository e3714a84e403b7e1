/** Deleting a document: its ingestion stopped, its vectors, record, chunk batches and file removed. */
import { rm } from 'node:fs/promises';
import { Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { unavailable } from '../../platform/errors';
import { terminateWorkflow } from '../../platform/temporal/client';
import type { Principal } from '../../platform/security/principal';
import { Document, DocumentChunkBatch } from '../../models/document';
import { getDocument } from './list-documents';
import { deleteSource, isVectorStoreDown } from '../search/vector-store';
import { makeContractsSearchable } from '../search/reflect-contracts';

export async function deleteDocument(s: Engines, p: Principal, id: unknown): Promise<void> {
  const { organizationId } = p;
  const doc = await getDocument(p, id);
  const documentId = doc.id;
  if (doc.status === 'processing' && doc.workflow_id) {
    // Stop writing vectors before removing them.
    await terminateWorkflow(s, doc.workflow_id, 'document deleted');
  }
  try {
    await deleteSource(s, organizationId, documentId);
  } catch (err) {
    if (isVectorStoreDown(err)) throw unavailable('The vector store is unavailable; the document was not deleted, try again shortly');
    throw err;
  }
  await Promise.all([
    Document.deleteOne({ _id: doc._id }),
    DocumentChunkBatch.deleteMany({ document_id: new Types.ObjectId(documentId) }),
    rm(doc.storage_path, { force: true }),
  ]);
  // Its pages leave its contract's search document at once.
  if (doc.contract_id) await makeContractsSearchable(s, organizationId, [doc.contract_id.toHexString()]);
}
