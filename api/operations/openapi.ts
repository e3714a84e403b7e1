/** The OpenAPI description of the API's own reference (api/routes/openapi.ts serves it). */
import { z } from 'zod';
import { operation } from '../http/openapi';

const tag = 'Reference';
operation({
  path: '/openapi.json',
  method: 'get',
  tag,
  public: true,
  summary: 'This OpenAPI 3.1 document',
  responses: { 200: { description: 'The document', schema: z.record(z.string(), z.unknown()) } },
});
operation({
  path: '/docs',
  method: 'get',
  tag,
  public: true,
  summary: 'Interactive API reference (HTML)',
  responses: { 200: { description: 'The page', schema: z.string(), contentType: 'text/html' } },
});
operation({
  path: '/docs/init.js',
  method: 'get',
  tag,
  public: true,
  summary: "The reference page's start-up script",
  responses: { 200: { description: 'JavaScript', schema: z.string(), contentType: 'text/javascript' } },
});
