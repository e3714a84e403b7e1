/**
 * A Word file back from the counterparty as the contract's next version: its accepted text
 * becomes the text of record, and the version keeps the file, its tracked changes (shown as
 * their authors' in the redline) and its comments. A hostile file is refused before any of
 * it is kept: a ZIP bomb (400), a macro-enabled file (415), an external relationship (400).
 */
import type { Engines } from '../../platform/engines';
import type { Principal } from '../../platform/security/principal';
import { AppError, badRequest, unavailable } from '../../platform/errors';
import { offloadTask, OffloadTimeoutError } from '../../platform/offload';
import type { ContractVersionDoc } from '../../models/contract-version';
import { detectFileType, MIME, type ReceivedFile } from '../documents/document-files';
import { currentVersion } from './contract-versions';
import { applyContractChanges } from './edit-contract';
import { getContract } from './get-contract';
import type { readWordUpload } from './read-word-upload';

const readTask = offloadTask<typeof readWordUpload>(require.resolve('./read-word-upload'), 'readWordUpload');
/** Reading a 50 MB Word file takes a few seconds on a loaded machine; past this the thread is stopped. */
const READ_BUDGET_MS = 30_000;
/** What `content` may hold (services/contracts/edit-contract.ts). */
const MAX_CONTENT_CHARS = 500_000;

const unsupported = (detail: string) => new AppError('unsupported_media_type', detail);

export async function importWordVersion(
  s: Engines,
  p: Principal,
  contractId: unknown,
  file: ReceivedFile,
  note: string | undefined,
): Promise<ContractVersionDoc> {
  const contract = await getContract(p, contractId);
  if (file.size === 0) throw badRequest('file: is empty');
  // By content, never by name: a .docm or a renamed file is not a DOCX.
  if ((await detectFileType(file.path)) !== MIME.docx) throw unsupported('file: must be a Word document (.docx)');
  let read;
  try {
    read = await s.offload.run(
      readTask,
      { path: file.path, maxExpandedBytes: s.config.EXTRACT_MAX_EXPANDED_BYTES },
      { timeoutMs: READ_BUDGET_MS },
    );
  } catch (err) {
    if (err instanceof OffloadTimeoutError) throw unavailable('Reading the Word file took too long on a busy server; try again shortly');
    throw err;
  }
  if (!read.ok) throw read.refusal.kind === 'macro' ? unsupported(read.refusal.detail) : badRequest(read.refusal.detail);
  const { accepted, changes, comments } = read.reading;
  if (accepted.length > MAX_CONTENT_CHARS) throw badRequest(`file: its text is longer than ${MAX_CONTENT_CHARS} characters`);
  await applyContractChanges(
    s,
    p,
    contract,
    { content: accepted, document_id: null, version_note: note ?? `Word file ${file.originalname.slice(0, 200)}` },
    undefined,
    { file: file.path, changes, comments },
  );
  const version = await currentVersion(contract);
  if (!version) throw new Error('the version just recorded is missing');
  return version;
}
