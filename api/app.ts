/**
 * The Express application: security headers, CORS, request ids and logs, the health check
 * at the host root, the versioned API under /api/v1 (which reads JSON bodies after its
 * rate limits) and the signers' page under /sign.
 */
import express from 'express';
import helmet from 'helmet';
import cors from 'cors';
import { randomUUID } from 'node:crypto';
import { pinoHttp } from 'pino-http';
import type { Engines } from '../platform/engines';
import { redactRequest, redactResponse } from '../platform/logger';
import { ERROR_CODE_HEADER, errorCodeOf, errorHandler, notFoundRoute } from './http/errors';
import { healthRouter } from './routes/health';
import { apiRouter } from './routes';
import { signingPageRouter } from './routes/signing-page';
import { approvalPageRouter } from './routes/approval-page';
import { checkQuery } from './http/middleware/input';
import { allowedMethods } from './http/middleware/methods';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function createApp(s: Engines): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Which peers' X-Forwarded-For sets req.ip (rate-limit buckets, signers' audit entries).
  app.set('trust proxy', s.config.TRUST_PROXY);
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: s.logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/health' },
      // Signing-link tokens and secret query parameters never reach the logs.
      serializers: { req: redactRequest, res: redactResponse },
      // The request's line names the error's code (errorHandler sets the header before it is written).
      customProps: (_req, res) => {
        const code = errorCodeOf(res);
        return code ? { error_code: code } : {};
      },
    }),
  );
  app.use(helmet());
  app.use(
    cors({
      origin: s.config.corsOrigins.length ? s.config.corsOrigins : false,
      exposedHeaders: ['X-Request-Id', ERROR_CODE_HEADER, 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
    }),
  );
  // An undeclared method is refused before its body is read.
  app.use(allowedMethods('/api/v1'));
  app.use(checkQuery);

  app.use('/health', healthRouter(s));
  // API answers carry tokens (sessions, API keys, signing links, invitations) and tenant data:
  // no browser or proxy may keep a copy. A route may still say otherwise (chat's event stream).
  app.use('/api/v1', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use('/api/v1', apiRouter(s));
  // The signer's page, the link in signing mail (outside the versioned API).
  app.use(signingPageRouter(s));
  // The approver's page, the personal link in approval mail.
  app.use(approvalPageRouter(s));
  app.use(notFoundRoute);
  app.use(errorHandler(s.logger));
  return app;
}
