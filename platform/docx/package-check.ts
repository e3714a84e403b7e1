/**
 * What a DOCX package may not hold, checked before anything renders or converts it (after
 * services/documents/check-expansion.ts has bounded what it inflates to): macros (a
 * macro-enabled package, or a VBA project in any part) and relationships to external targets,
 * other than hyperlinks, which a renderer such as LibreOffice would fetch (a linked image, a
 * remote template, an OLE link): a template must not make the server reach out, nor hand signers a file that does.
 */
import PizZip from 'pizzip';

export class HostileDocxError extends Error {}

const MACRO_CONTENT_TYPE = /macroEnabled|vbaProject/i;
const MACRO_PART = /(^|\/)vbaProject\.bin$|(^|\/)vbaData\.xml$/i;
// An external relationship other than a hyperlink (Word opens no hyperlink by itself).
const EXTERNAL = /<Relationship\b(?![^>]*relationships\/hyperlink")[^>]*TargetMode\s*=\s*["']External["']/i;

/** The package read by pizzip; throws HostileDocxError naming what it refuses. */
export function openCheckedDocx(bytes: Buffer): PizZip {
  let zip: PizZip;
  try {
    zip = new PizZip(bytes);
  } catch (err) {
    throw new HostileDocxError(`not a readable DOCX (${(err as Error).message})`);
  }
  const types = zip.file('[Content_Types].xml')?.asText();
  if (!types || !zip.file('word/document.xml')) throw new HostileDocxError('not a DOCX: it has no word/document.xml');
  if (MACRO_CONTENT_TYPE.test(types)) throw new HostileDocxError('a macro-enabled document is not accepted');
  for (const name of Object.keys(zip.files)) {
    if (MACRO_PART.test(name)) throw new HostileDocxError(`a document with macros (${name}) is not accepted`);
    if (name.endsWith('.rels') && EXTERNAL.test(zip.file(name)?.asText() ?? '')) {
      throw new HostileDocxError(`a document with external relationships (${name}) is not accepted`);
    }
  }
  return zip;
}
