/** The redline as a task for the offload pool: CPU-bound, so never on the API's event loop. */
import type { Services } from '../../platform/services';
import { redlineTexts, type Redline } from './redline';

export function runRedline(_s: Services, input: { a: string; b: string }): Promise<Redline> {
  return Promise.resolve(redlineTexts(input));
}
