/** A vendor call's error as the Temporal failure to act on: when, and whether, to try again. */
import { ApplicationFailure } from '@temporalio/activity';
import { VendorError } from '../services/integrations/connector';
import { IntegrationGone } from '../services/integrations/sync-contracts';
import { UrlPolicyError } from '../platform/security/url-policy';

/**
 * 429 waits for the vendor's Retry-After (else backs off), 5xx and network failures back off,
 * 401/403 (`VendorAuth`, which ends a sync), other 4xx and refused URLs are not retried.
 */
export function vendorFailure(err: unknown): unknown {
  if (err instanceof IntegrationGone) return ApplicationFailure.nonRetryable(err.message, 'IntegrationGone');
  if (err instanceof UrlPolicyError) return ApplicationFailure.nonRetryable(err.message, 'UrlRefused');
  if (!(err instanceof VendorError)) return err;
  if (err.rateLimited)
    return new ApplicationFailure(err.message, 'VendorRateLimited', false, undefined, undefined, err.retryAfterMs ?? undefined);
  if (err.status === 401 || err.status === 403) return ApplicationFailure.nonRetryable(err.message, 'VendorAuth');
  return err.retryable
    ? ApplicationFailure.retryable(err.message, 'VendorUnavailable')
    : ApplicationFailure.nonRetryable(err.message, 'VendorRejected');
}

/** The step, its errors thrown as vendorFailure says. */
export const failingAsVendor =
  <A extends unknown[], R>(step: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    step(...args).catch((err: unknown) => {
      throw vendorFailure(err);
    });
