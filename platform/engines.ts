/**
 * The engines a process talks to, created once at start-up and closed on shutdown.
 * The API and the worker both build one, through services/wiring.ts `startEngines`; tests
 * build one per run.
 */
import mongoose from 'mongoose';
import type { Redis } from 'ioredis';
import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { Client as TemporalClient, Connection as TemporalConnection } from '@temporalio/client';
import type { Config } from './config';
import type { Logger } from './logger';
import { connectMongo } from './mongo';
import { createRedis } from './redis';
import { createElasticsearch } from './elasticsearch';
import { createTemporalClient } from './temporal/client';
import { createAi } from './ai';
import type { AiPort } from './ai/port';
import { createMailTransport, type MailTransport } from './mail/transport';
import { createOffloadPool, type OffloadPool } from './offload';

export interface Engines {
  config: Config;
  logger: Logger;
  redis: Redis;
  es: ElasticsearchClient;
  temporal: TemporalClient;
  temporalConnection: TemporalConnection;
  ai: AiPort;
  /** SMTP (pooled; connects on the first message). */
  mailer: MailTransport;
  /** Worker threads for CPU-bound pure work (started on first use). */
  offload: OffloadPool;
}

/**
 * What keeps something beside the store current with this process's writes (the auth cache,
 * the list index); started with the engines, it returns its unsubscription. The features
 * choose them (services/wiring.ts `startEngines`): this module knows none.
 */
export type WriteFollower = (s: Engines) => (() => void) | Promise<() => void>;

export async function openEngines(config: Config, logger: Logger, followers: readonly WriteFollower[]): Promise<Engines> {
  await connectMongo(config, logger);
  const { client, connection } = createTemporalClient(config);
  const s: Engines = {
    config,
    logger,
    redis: createRedis(config, logger),
    es: createElasticsearch(config),
    temporal: client,
    temporalConnection: connection,
    ai: createAi(config, logger),
    mailer: createMailTransport(config),
    offload: createOffloadPool({ threads: config.OFFLOAD_THREADS }),
  };
  const stops = await Promise.all(followers.map(async (follow) => follow(s)));
  subscriptions.set(s, () => stops.forEach((stop) => stop()));
  return s;
}

/** What each process's engines listen to, undone when they close. */
const subscriptions = new WeakMap<Engines, () => void>();

export async function closeEngines(s: Engines): Promise<void> {
  subscriptions.get(s)?.();
  s.redis.disconnect();
  s.mailer.close();
  await Promise.allSettled([s.offload.close(), s.es.close(), s.temporalConnection.close(), mongoose.disconnect()]);
}
