/**
 * The running imports of an organization, at most IMPORT_MAX_RUNNING_PER_ORG: an import takes
 * one of the organization's numbered slots before it is accepted and gives it back when it
 * ends (finishImport, on every way out of its workflow, and on cancel). A slot is taken by
 * inserting it under a unique index, so simultaneous requests cannot all pass, as they would
 * past a count (FerretDB applies conditional updates as a read and a separate write).
 *
 * A slot whose import cannot end through its workflow any more (the record is gone, has ended,
 * or its workflow was terminated or timed out) is stale: the next request that finds every slot
 * taken frees it (ending such an import `failed`) and tries again. A slot younger than
 * STALE_AFTER_MS is never judged, since its import may still be between its claim and its start.
 */
import { trusted, Types } from 'mongoose';
import type { Engines } from '../../platform/engines';
import { isDuplicateKey } from '../../platform/mongo';
import { workflowRunning } from '../../platform/temporal/client';
import { Import, ImportSlot } from '../../models/import';
import { importErrors } from './errors';
import { finishImport } from './import-phases';

const STALE_AFTER_MS = 60_000;

async function tryClaim(organizationId: Types.ObjectId, importId: Types.ObjectId, slots: number): Promise<boolean> {
  for (let slot = 0; slot < slots; slot++) {
    try {
      await ImportSlot.create({ organization_id: organizationId, slot, import_id: importId, claimed_at: new Date() });
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  return false;
}

/** Frees the organization's stale slots; answers whether any was freed. */
async function freeStaleSlots(s: Engines, organizationId: Types.ObjectId): Promise<boolean> {
  const old = await ImportSlot.find({
    organization_id: organizationId,
    claimed_at: trusted({ $lt: new Date(Date.now() - STALE_AFTER_MS) }),
  }).lean();
  let freed = false;
  for (const slot of old) {
    const imported = await Import.findOne({ _id: slot.import_id, organization_id: organizationId });
    if (imported?.status === 'running') {
      // Temporal unreachable: the slot is kept (a refusal now is better than one import too many).
      const running = await workflowRunning(s, imported.workflow_id ?? '').catch(() => true);
      if (running) continue;
      await finishImport(imported.id, 'failed', 'the import stopped without finishing (its workflow ended)');
    }
    // By its own id: a slot another request has meanwhile freed and taken again is not touched.
    const { deletedCount } = await ImportSlot.deleteOne({ _id: slot._id, import_id: slot.import_id });
    freed ||= deletedCount > 0 || imported?.status === 'running';
  }
  return freed;
}

/** Takes a slot for the import about to be accepted, or answers 409 when the organization runs as many as it may. */
export async function claimImportSlot(s: Engines, organizationId: Types.ObjectId, importId: Types.ObjectId): Promise<void> {
  await ImportSlot.init();
  const slots = s.config.IMPORT_MAX_RUNNING_PER_ORG;
  if (await tryClaim(organizationId, importId, slots)) return;
  if ((await freeStaleSlots(s, organizationId)) && (await tryClaim(organizationId, importId, slots))) return;
  throw importErrors.too_many_running_imports(
    `This organization already runs ${slots} import${slots > 1 ? 's' : ''}, as many as it may at once; wait for one to end, or cancel one`,
  );
}
