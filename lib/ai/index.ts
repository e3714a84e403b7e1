import type { Config } from '../config';
import type { Logger } from '../logger';
import type { AiPort } from './port';
import { createGeminiAi } from './gemini';
import { createLocalAi } from './local';

/** The process's AI provider: Gemini when an API key is configured, else the local one. */
export function createAi(config: Config, logger: Logger): AiPort {
  return config.aiProvider === 'gemini' ? createGeminiAi(config, logger) : createLocalAi();
}
