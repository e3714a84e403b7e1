import type { Role } from './rbac';

/** Who is calling: a user (JWT) or an API key acting for its organization. */
export interface Principal {
  kind: 'user' | 'api_key';
  /** The user id, or the API key id. */
  id: string;
  /** The user, or the key's creator. */
  userId: string;
  organizationId: string;
  role: Role;
  /** For the activity feed: the user's name or the key's name. */
  name: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}
