import { Router } from 'express';
import type { Services } from '../../lib/services';
import { authenticate } from '../middleware/auth';
import { publicAuthRouter } from './auth';
import { teamRouter } from './team';

/** Every resource's router, mounted under /api/v1. */
export function apiRouter(s: Services): Router {
  const router = Router();
  // Public routes first; everything mounted after `authenticate` needs a bearer credential.
  router.use(publicAuthRouter(s));
  router.use(authenticate(s));
  router.use(teamRouter(s));
  return router;
}
