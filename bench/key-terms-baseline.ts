/** The key-terms bench's baseline, run in an offload thread like the rules: one regex pass over the text. */
import { offloadTask } from '../platform/offload';

export function baselinePass({ text }: { text: string }): number {
  return [...text.matchAll(/\bliab\w*/g)].length;
}

export const baselinePassTask = offloadTask<typeof baselinePass>(__filename, 'baselinePass');
