/** How the vector store fails: a bulk request's refused items, and an outage of the cluster. */
import { errors, type estypes } from '@elastic/elasticsearch';

export const errorType = (err: unknown) =>
  err instanceof errors.ResponseError ? (err.body as { error?: { type?: string } } | undefined)?.error?.type : undefined;
export const ignoreExisting = (err: unknown) => {
  if (errorType(err) !== 'resource_already_exists_exception') throw err;
};

/** Writes refused while a collection moves to a new index (`upgradeCollections`): a short outage. */
class VectorStoreBlocked extends Error {}

/** Throws the first failed item of a bulk request, if any. */
export function checkBulk(res: estypes.BulkResponse, what: string, ignore?: string): void {
  if (!res.errors) return;
  const failed = res.items.map((i) => Object.values(i)[0]?.error).find((e) => e && e.type !== ignore);
  if (!failed) return;
  const message = `${what} failed: ${failed.type}: ${failed.reason ?? ''}`;
  throw failed.type === 'cluster_block_exception' ? new VectorStoreBlocked(message) : new Error(message);
}

/** The cluster is down or unreachable (an outage for the caller, not a bug). */
export function isVectorStoreDown(err: unknown): boolean {
  return (
    err instanceof VectorStoreBlocked ||
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError ||
    (err instanceof errors.ResponseError && err.statusCode === 503)
  );
}
