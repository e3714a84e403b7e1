/** API entry point: connect the engines, serve HTTP, shut down gracefully on SIGTERM/SIGINT. */
// The app first: its OpenAPI registry extends zod, and zod 4 gives `.openapi()` only to
// schemas made after that (the services' request schemas among them).
import { createApp } from './app';
import { getConfig } from '../platform/config';
import { createLogger } from '../platform/logger';
import { closeEngines } from '../platform/engines';
import { startEngines } from '../services/wiring';

async function main() {
  const config = getConfig();
  const logger = createLogger(config, 'api');
  const services = await startEngines(config, logger);
  const server = createApp(services).listen(config.PORT, config.HOST, () => {
    logger.info({ url: `http://localhost:${config.PORT}`, temporalUi: config.TEMPORAL_UI_URL }, 'API listening');
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void closeEngines(services).then(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 15000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
