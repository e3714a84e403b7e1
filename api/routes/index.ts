import { Router } from 'express';
import type { Services } from '../../lib/services';

/** Every resource's router, mounted under /api/v1. */
export function apiRouter(_s: Services): Router {
  const router = Router();
  return router;
}
