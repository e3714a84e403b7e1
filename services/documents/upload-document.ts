/**
 * Taking an upload in: the file is checked by content, recorded as `processing`, and the
 * ingestion workflow `ingest-<id>` makes it `ready` (searchable by the chat) or `failed`.
 */
import { z } from 'zod';
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { badRequest, notFound } from '../../platform/errors';
import { newWorkflowRecord, startWorkflowOrDiscard } from '../../platform/temporal/client';
import { ID_PATTERN, inOrg } from '../../models/base';
import { Contract } from '../../models/contract';
import { Document, DOCUMENT_CATEGORIES, type DocumentDoc } from '../../models/document';
import { documentIngestion, ingestionWorkflowId } from '../../workflows/document-ingestion.shared';
import { detectFileType, sanitizeFilename, type ReceivedFile } from './document-files';

// An unknown or malformed contract id in an upload is 404 (the contract is not found), as in a path.
export const uploadBody = z.object({
  category: z.enum(DOCUMENT_CATEGORIES),
  contract_id: z
    .string()
    .max(100)
    .meta({ pattern: ID_PATTERN.source, description: 'A contract of the organization; any other value answers 404' })
    .optional(),
});
export async function uploadDocument(s: Engines, p: Principal, file: ReceivedFile, body: z.infer<typeof uploadBody>): Promise<DocumentDoc> {
  const { category, contract_id } = body;
  const owner = contract_id === undefined ? null : inOrg(p.organizationId, contract_id);
  if (contract_id !== undefined && !(owner && (await Contract.exists(owner)))) throw notFound('Contract');
  if (file.size === 0) throw badRequest('file: is empty');
  const mime = await detectFileType(file.path);
  if (!mime) throw badRequest('file: content is not a PDF, DOCX or UTF-8 text file');

  const ids = newWorkflowRecord(ingestionWorkflowId);
  const doc = await Document.create({
    ...ids,
    organization_id: p.organizationId,
    filename: sanitizeFilename(file.originalname),
    size_bytes: file.size,
    mime_type: mime,
    category,
    status: 'processing',
    uploaded_by: p.userId,
    storage_path: file.path,
    contract_id: contract_id ?? null,
  });
  const documentId = doc.id;
  await startWorkflowOrDiscard(
    s,
    documentIngestion,
    { workflowId: ids.workflow_id, args: [{ documentId }], organizationId: p.organizationId, recordId: documentId },
    { discard: () => Document.deleteOne({ _id: doc._id }), notKept: 'the upload was not kept' },
  );
  return doc;
}
