import { Client } from '@elastic/elasticsearch';
import type { Config } from './config';

export function createElasticsearch(config: Pick<Config, 'ELASTICSEARCH_URL'>): Client {
  return new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 30000, maxRetries: 2 });
}

/** Cluster health rather than `ping`: the minimal distribution has no handler for `HEAD /`. */
export async function pingElasticsearch(es: Client, timeoutMs: number): Promise<boolean> {
  try {
    const health = await es.cluster.health({ timeout: `${timeoutMs}ms` }, { requestTimeout: timeoutMs, maxRetries: 0 });
    return health.status !== 'red';
  } catch {
    return false;
  }
}
