/** The OpenAPI description of the approval page's routes (api/routes/approval-page.ts serves them). */
import { z } from 'zod';
import { approvalFormFields } from '../../services/approvals/submit-approval-form';
import { APPROVAL_TOKEN } from '../../services/approvals/approval-link';
import { operation } from '../http/openapi';

const tag = 'Approval page';
const page = (description: string) => ({ description, schema: z.string(), contentType: 'text/html' });
/** The token's own pattern: no literal of the JSON API (`/approvals/{id}/approve`) fills it. */
const params = z.object({ token: z.string().regex(APPROVAL_TOKEN).meta({ description: "The approver's personal token from the mail" }) });
const root = { tag, public: true, root: true, params } as const;

operation({
  ...root,
  path: '/approvals/{id}/{token}',
  method: 'get',
  summary: "The approver's page (HTML): the contract's facts, key terms beside the standard, the redline, Approve and Reject",
  description:
    "The approver's personal link in approval mail. It only reads: opening it (a person, a mail scanner, a prefetch) decides nothing. Unknown, expired (APPROVAL_LINK_DAYS) and superseded links have a page of their own.",
  responses: {
    200: page('The page, or the state of the request (decided, not your turn yet)'),
    404: page('Unknown link'),
    410: page('The link expired, or the request was superseded'),
  },
});
operation({
  ...root,
  path: '/approvals/{id}/{token}',
  method: 'post',
  summary: 'Approve or reject from the page (form: csrf, decision=approve|reject, comment, code when the approver has MFA on)',
  description:
    "Decides through the same use case as `POST /approvals/{id}/approve` and `/reject`, as the link's approver and on the version it is bound to, so every rule of those holds here too.",
  // At most 10 fields (parameterLimit), each one value; more is 413.
  form: approvalFormFields.extend({ csrf: z.string() }).catchall(z.string()).meta({ maxProperties: 10 }),
  responses: {
    303: 'Back to the page, which shows the new state',
    400: page('The form again, with what to correct (a missing or wrong MFA code included)'),
    403: page('The CSRF token is missing or does not match this browser and link; or the decision was refused'),
    409: page('The decision was refused: the request closed, changed or is not at your step'),
  },
});
