/** The OpenAPI description of the signing page's routes (api/routes/signing-page.ts serves them). */
import { z } from 'zod';
import { declineForm, signForm } from '../../services/signatures/submit-signing-form';
import { STYLESHEET_PATH } from '../views/signing-page';
import { operation } from '../http/openapi';

const tag = 'Signing page';
const page = (description: string) => ({ description, schema: z.string(), contentType: 'text/html' });
const posted = {
  303: 'Back to the page, which shows the new state',
  400: page('The form again, with what to correct'),
  403: page('The CSRF token is missing or does not match this browser and link'),
};
const root = { tag, public: true, root: true } as const;
/** The form as the route's parser reads it: at most 10 fields (parameterLimit), each one value; more is 413. */
const formOf = (schema: z.ZodObject) => schema.extend({ csrf: z.string() }).catchall(z.string()).meta({ maxProperties: 10 });
operation({
  ...root,
  path: STYLESHEET_PATH,
  method: 'get',
  summary: "The signing page's stylesheet",
  responses: { 200: { description: 'CSS', schema: z.string(), contentType: 'text/css' } },
});
operation({
  ...root,
  path: '/sign/{token}',
  method: 'get',
  summary: "The signer's page (HTML): the document, consent, Sign and Decline, or the link's state",
  description:
    "The link in signing mail (`signing_url`). Marks the signer as having viewed the document, like the JSON endpoint. A copy link from the completion mail shows the sealed PDF's download.",
  responses: { 200: page('The page'), 404: page('Unknown link'), 410: page('An expired copy link') },
});
operation({
  ...root,
  path: '/sign/{token}/document.pdf',
  method: 'get',
  summary: 'The document as PDF: to sign, or sealed once everyone has signed',
  responses: {
    200: { description: 'The PDF', schema: z.string(), contentType: 'application/pdf' },
    410: page(
      'The link can no longer download it: the link is closed, or the request was completed more than SIGNED_COPY_DAYS ago (as JSON `{detail}` to a client that accepts only JSON)',
    ),
  },
});
operation({
  ...root,
  path: '/sign/{token}',
  method: 'post',
  summary: 'Sign from the page (form: csrf, consent=yes, signature_text)',
  form: formOf(signForm),
  responses: posted,
});
operation({
  ...root,
  path: '/sign/{token}/decline',
  method: 'post',
  summary: 'Decline from the page (form: csrf, reason)',
  form: formOf(declineForm),
  responses: posted,
});
