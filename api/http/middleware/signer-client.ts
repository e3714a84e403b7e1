import type { Request } from 'express';
import type { SignerClient } from '../../../services/signatures/record-signer-act';

/** The signer's address (as `trust proxy` resolves it) and user agent, for the audit trail. */
export const signerClient = (req: Request): SignerClient => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });
