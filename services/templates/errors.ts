/** What template requests can fail on, in the domain's words (platform/errors.ts). */
import { defineErrors } from '../../platform/errors';

export const templateErrors = defineErrors({
  template_invalid: {
    status: 400,
    meaning: 'The template has unknown or malformed tags or declarations; `detail` lists each with where it sits',
  },
  template_file_refused: {
    status: 400,
    meaning: 'The template file is not a DOCX or UTF-8 text, or is refused (a ZIP bomb, macros, external relationships)',
  },
  template_archived: { status: 409, meaning: 'The template is archived: it takes no new version and cannot be published' },
  template_version_missing: { status: 409, meaning: 'The template has no version of that number' },
  template_not_published: { status: 409, meaning: 'The template has no published version to draft from (draft or archived)' },
  variables_invalid: {
    status: 400,
    meaning: "The draft's variables or clause choices break the template's rules; `detail` names every wrong field",
  },
  pdf_render_failed: { status: 503, meaning: 'The PDF of record could not be rendered (LibreOffice); try again shortly' },
});
