import type { Config } from '../config';
import type { Logger } from '../logger';
import type { AiPort } from './port';
import { createGeminiAi } from './gemini';
import { createLocalAi } from './local';
import { openSentenceEncoder } from './sentence-encoder';

/**
 * The process's AI provider: Gemini when an API key is configured, else the local one,
 * which embeds with the provisioned sentence-embedding model (feature hashing when its
 * files are absent).
 */
export function createAi(config: Config, logger: Logger): AiPort {
  if (config.aiProvider === 'gemini') return createGeminiAi(config, logger);
  const encoder = openSentenceEncoder(config.EMBEDDING_MODEL_DIR, {
    threads: config.EMBEDDING_THREADS,
    batchSize: config.EMBEDDING_BATCH_SIZE,
  });
  if (!encoder)
    logger.warn(
      { dir: config.EMBEDDING_MODEL_DIR },
      'no local embedding model found (run scripts/stack.sh provision); embedding by feature hashing',
    );
  return createLocalAi(encoder);
}
