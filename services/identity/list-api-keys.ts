/** The organization's API keys, newest first (never their secrets). */
import type { Principal } from '../../platform/security/principal';
import { orgFilter } from '../../models/base';
import { ApiKey } from '../../models/api-key';

export const listApiKeys = (p: Principal) => ApiKey.find(orgFilter(p.organizationId)).sort({ created_at: -1 });
