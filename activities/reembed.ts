/** The embedding-model migration's one step (workflows/reembed.ts). */
import type { Engines } from '../platform/engines';
import { whileBeating } from '../platform/temporal/heartbeat';
import { reembedStaleChunks } from '../services/search/vector-store';

export function createReembedActivities(s: Engines) {
  return {
    /** Re-embeds a page of chunks made by another model; 0 when none is left. */
    async reembedStaleChunks({ limit }: { limit: number }): Promise<number> {
      return whileBeating(
        () => ({ limit }),
        () => reembedStaleChunks(s, limit),
      );
    },
  };
}

export type ReembedActivities = ReturnType<typeof createReembedActivities>;
