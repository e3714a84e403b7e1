/**
 * The API's own description (public): the OpenAPI 3.1 document and an interactive
 * reference page built from the installed swagger-ui-dist files (no CDN). The page loads
 * its scripts from here, so its relaxed CSP needs no inline scripts.
 */
import path from 'node:path';
import express, { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { openApiDocument } from '../http/openapi';
import { notFound } from '../../platform/errors';
import '../http/openapi-events';
import '../operations/openapi';

/** Only for the reference page: Swagger UI styles inline and draws icons from data: URLs. */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Contract-lifecycle service API reference</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

// Relative to /api/v1/docs, so the page works behind any prefix.
const INIT = `window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;

export function openApiDocumentRouter(_s: Engines): Router {
  const router = Router();
  // Every route module has registered its operations by the time the first request arrives.
  let document: ReturnType<typeof openApiDocument> | undefined;

  router.get('/', (_req, res) => {
    document ??= openApiDocument();
    res.json(document);
  });
  return router;
}

export function referencePageRouter(_s: Engines): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.set('Content-Security-Policy', DOCS_CSP).type('html').send(PAGE);
  });
  router.get('/init.js', (_req, res) => {
    res.type('text/javascript').send(INIT);
  });
  // Static files of the installed package (css, bundle); not API operations.
  router.use('/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1d' }), (_req, _res, next) => next(notFound('File')));
  return router;
}
