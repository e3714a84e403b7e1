import { Client, Connection } from '@temporalio/client';
import { grpc } from '@temporalio/proto';
import type { Config } from './config';

/**
 * The Temporal client. The connection is lazy so the API starts (and reports
 * `workflow_engine: disconnected`) while Temporal is down, and reconnects when it returns.
 */
export function createTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>) {
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  return { connection, client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }) };
}

export async function pingTemporal(connection: Connection, timeoutMs: number): Promise<boolean> {
  try {
    const res = await connection.withDeadline(Date.now() + timeoutMs, () => connection.healthService.check({}));
    return res.status === grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING;
  } catch {
    return false;
  }
}
