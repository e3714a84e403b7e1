/** SCIM's own error codes (RFC 7644 §3.12): each carries the `scimType` the provider branches on. */
import { AppError, defineErrors } from '../../platform/errors';

export const scimErrors = defineErrors({
  scim_token_invalid: { status: 401, meaning: 'The SCIM bearer token is missing, unknown or replaced' },
  scim_uniqueness: { status: 409, meaning: 'SCIM: the userName, email or displayName is already taken (scimType uniqueness)' },
  scim_invalid_filter: { status: 400, meaning: 'SCIM: the filter is malformed or uses what is not supported (scimType invalidFilter)' },
  scim_invalid_path: { status: 400, meaning: 'SCIM: the PATCH path is malformed or names no attribute (scimType invalidPath)' },
  scim_invalid_value: { status: 400, meaning: 'SCIM: a value is missing or of the wrong type (scimType invalidValue)' },
  scim_invalid_syntax: { status: 400, meaning: 'SCIM: the request body is not a valid SCIM message (scimType invalidSyntax)' },
  scim_mutability: { status: 400, meaning: 'SCIM: the attribute cannot be changed (scimType mutability)' },
});

/** The scimType of an error code, where SCIM names one; the last owner's lock is a mutability refusal. */
const SCIM_TYPES: Record<string, string> = {
  scim_uniqueness: 'uniqueness',
  scim_invalid_filter: 'invalidFilter',
  scim_invalid_path: 'invalidPath',
  scim_invalid_value: 'invalidValue',
  scim_invalid_syntax: 'invalidSyntax',
  scim_mutability: 'mutability',
  last_owner: 'mutability',
  validation_failed: 'invalidValue',
  malformed_json: 'invalidSyntax',
};

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The SCIM error body of an error (status as a string, as RFC 7644 writes it). */
export function scimErrorBody(e: AppError) {
  const scimType = SCIM_TYPES[e.code];
  return { schemas: [SCIM_ERROR_SCHEMA], status: String(e.status), ...(scimType ? { scimType } : {}), detail: e.detail };
}
