import { Router } from 'express';
import type { Engines } from '../../platform/engines';
import { authenticate } from '../http/middleware/auth';
import { rateLimits } from '../http/middleware/rate-limit';
import { jsonBody } from '../http/middleware/body';
import { authRouter, publicAuthRouter } from './auth';
import { apiKeysRouter } from './api-keys';
import { organizationRouter } from './organization';
import { teamRouter } from './team';
import { teamLifecycleRouter } from './team-lifecycle';
import { webhooksRouter } from './webhooks';
import { analyticsRouter } from './analytics';
import { documentsRouter } from './documents';
import { chatRouter } from './chat';
import { contractsRouter } from './contracts';
import { contractTermsRouter } from './contract-terms';
import { contractVersionsRouter } from './contract-versions';
import { approvalPoliciesRouter } from './approval-policies';
import { approvalsRouter, contractApprovalsRouter } from './approvals';
import { vendorsRouter } from './vendors';
import { integrationsRouter } from './integrations';
import { signaturesPublicRouter, signaturesRouter } from './signatures';
import { openApiDocumentRouter, referencePageRouter } from './openapi';
import { complianceRouter } from './compliance';
import { mailRouter } from './mail';
import { importsRouter } from './imports';
import { searchAdminRouter, searchRouter } from './search';
import { ssoPublicRouter, ssoSettingsRouter } from './sso';
import { templatesRouter } from './templates';
import { clausesRouter } from './clauses';
import { scimRouter, scimSettingsRouter } from './scim';
import { auditLogRouter } from './audit-log';
import { identityAudit } from '../http/middleware/identity-audit';

/** Every resource's router, mounted under /api/v1. */
export function apiRouter(s: Engines): Router {
  const router = Router();
  const limits = rateLimits(s);
  // Every identity matter is logged once answered (services/audit/).
  router.use(identityAudit(s.logger));
  // Public routes first; everything mounted after `authenticate` needs a bearer credential.
  // The auth routes carry their own limits; every other request counts here, before its body is read.
  router.use('/auth/sso', ssoPublicRouter(s, limits));
  router.use('/auth', publicAuthRouter(s, limits));
  // The identity provider's own token and media type (application/scim+json).
  router.use('/scim/v2', scimRouter(s));
  router.use(limits.default, jsonBody(s.config));
  // Signer links and the certificate public key: no account needed.
  router.use('/signatures', signaturesPublicRouter(s));
  router.use('/openapi.json', openApiDocumentRouter(s));
  router.use('/docs', referencePageRouter(s));
  router.use(authenticate(s));
  router.use('/auth', authRouter(s, limits));
  router.use('/team', teamRouter(s));
  router.use('/team', teamLifecycleRouter(s));
  router.use('/webhooks', webhooksRouter(s));
  router.use('/analytics', analyticsRouter(s));
  router.use('/documents', documentsRouter(s));
  router.use('/chat', chatRouter(s));
  router.use('/settings/api-keys', apiKeysRouter(s));
  router.use('/settings/organization', organizationRouter(s));
  router.use('/settings/mail', mailRouter(s));
  router.use('/settings/sso', ssoSettingsRouter(s));
  router.use('/search', searchRouter(s));
  router.use('/admin/search', searchAdminRouter(s));
  router.use('/settings/scim', scimSettingsRouter());
  router.use('/audit-log', auditLogRouter(s));
  router.use('/settings/approval-policies', approvalPoliciesRouter(s));
  router.use('/contracts', contractApprovalsRouter(s));
  router.use('/approvals', approvalsRouter(s));
  // Before the contracts router: /contracts/renewals is not a contract id.
  router.use('/contracts', contractTermsRouter(s));
  router.use('/contracts', contractVersionsRouter(s));
  router.use('/contracts', contractsRouter(s));
  router.use('/vendors', vendorsRouter(s));
  router.use('/integrations', integrationsRouter(s));
  router.use('/signatures', signaturesRouter(s));
  router.use('/compliance', complianceRouter(s));
  router.use('/imports', importsRouter(s));
  router.use('/templates', templatesRouter(s));
  router.use('/clauses', clausesRouter(s));
  return router;
}
