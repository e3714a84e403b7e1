/** The OpenAPI description of the template operations (api/routes/templates.ts serves them). */
import { z } from 'zod';
import { idSchema } from '../../platform/input';
import { TEMPLATE_STATUSES } from '../../models/template';
import { templateDefinition, versionDefinition, withText } from '../../services/templates/read-template-file';
import { publishBody } from '../../services/templates/edit-templates';
import { listTemplatesQuery } from '../../services/templates/template-view';
import { operation, registry, timestamp } from '../http/openapi';

const item = registry.register(
  'TemplateListItem',
  z.object({
    id: idSchema,
    name: z.string(),
    description: z.string().nullable(),
    contract_type: z.string(),
    status: z.enum(TEMPLATE_STATUSES),
    latest_version: z.number().int(),
    published_version: z.number().int().nullable(),
    updated_at: timestamp,
  }),
);
const version = registry.register(
  'TemplateVersion',
  z.object({
    number: z.number().int(),
    source: z.enum(['docx', 'text']),
    clauses: z.array(z.string()),
    note: z.string().nullable(),
    created_at: timestamp,
  }),
);
const template = registry.register(
  'Template',
  item.extend({
    version,
    variables: z.array(z.record(z.string(), z.unknown())).meta({ description: 'The declared variables of the version shown' }),
    variables_schema: z.record(z.string(), z.unknown()).meta({
      description:
        "The draft's `variables` as a JSON Schema (draft 2020-12): titles are labels, defaults and required as declared, clause variables included",
    }),
    created_at: timestamp,
  }),
);

const file = z.string().meta({ format: 'binary', description: 'The template: a DOCX, or a UTF-8 text file with the same tags' });
const definition = (of: z.ZodType) =>
  z.string().meta({
    format: 'binary',
    description: `A JSON part: ${of === templateDefinition ? 'name, contract_type, variables, clauses' : 'variables, clauses, note'}`,
  });
const tag = 'Templates';
const refused =
  '`template_invalid`: every unknown or malformed tag and declaration, each with where it sits; `template_file_refused`: not a DOCX or text, a ZIP bomb, macros, external relationships';

operation({
  path: '/templates',
  method: 'get',
  tag,
  summary: 'List templates: members see the published ones, admins and owners all',
  query: listTemplatesQuery,
  responses: { 200: { description: 'The templates by name', schema: z.object({ templates: z.array(item) }) } },
});
operation({
  path: '/templates',
  method: 'post',
  tag,
  summary: 'Upload a template (admins and owners): multipart `file` + `definition`, or JSON with `text`',
  description:
    'Tags: `{{name}}`, `{{party.name}}`, sections `{{#flag}}...{{/flag}}` and `{{^flag}}` on a yes_no or optional variable, repeating table rows `{{#rows}}...{{/rows}}`, clauses `{{clause.<type>}}`. Tags are data: nothing is evaluated. The upload is checked at once; version 1 is a draft until published.',
  body: templateDefinition.extend(withText),
  multipart: z.object({ file, definition: definition(templateDefinition) }),
  responses: { 201: { description: 'The template', schema: template }, 400: refused },
});
operation({
  path: '/templates/{id}',
  method: 'get',
  tag,
  summary: 'Get a template with its variables as a JSON Schema',
  responses: { 200: { description: 'The template', schema: template } },
});
operation({
  path: '/templates/{id}/versions',
  method: 'post',
  tag,
  summary: 'Upload a new version of a template (admins and owners)',
  body: versionDefinition.extend(withText),
  multipart: z.object({ file, definition: definition(versionDefinition) }),
  responses: { 201: { description: 'The version', schema: version }, 400: refused, 409: 'The template is archived' },
});
operation({
  path: '/templates/{id}/publish',
  method: 'post',
  tag,
  summary: 'Publish a version (the latest by default): members draft from it',
  body: publishBody,
  responses: { 200: { description: 'The template', schema: item }, 409: 'No such version' },
});
operation({
  path: '/templates/{id}/archive',
  method: 'post',
  tag,
  summary: 'Archive a template: no new drafts from it',
  responses: { 200: { description: 'The template', schema: item } },
});
operation({
  path: '/templates/{id}/bulk-send',
  method: 'post',
  tag,
  summary: 'Send contracts drafted from the published version, one per CSV row, for signature (a background job, like an import)',
  description:
    'Multipart `file`: a CSV whose header names the template variables (a party or money variable by field: `party.name`, `fee.amount`), `counterparty` (required), optional `title`, and the signers as `signer_<n>_name` and `signer_<n>_email` (n from 1, at most 20). Answers 202 with the job (an import of kind `bulk_send`: follow it at GET /imports/{id}, rejected rows at GET /imports/{id}/errors, cancel it at POST /imports/{id}/cancel). Each row is drafted as by POST /contracts with `template_id` and sent as by POST /signatures (approval gate, daily mail quota); a row whose contract needs approval gets its approval started and is reported as awaiting approval, not sent.',
  multipart: z.object({ file: z.string().meta({ format: 'binary', description: 'CSV with a header row; UTF-8' }) }),
  responses: {
    202: { description: 'The job (an import of kind `bulk_send`)', schema: z.record(z.string(), z.unknown()) },
    400: 'No file, an unknown, duplicated or missing header column, a signer without name or email column, or no rows',
    409: '`template_not_published`, or the organization already runs IMPORT_MAX_RUNNING_PER_ORG imports',
    413: 'The file is over IMPORT_RECORDS_MAX_BYTES or IMPORT_MAX_ROWS',
  },
});
