/**
 * What a Word package may not hold to be taken in: macros (a `.docm` main part, a VBA
 * project, ActiveX controls) and relationships that make Word fetch something when the
 * file is opened (a linked image, frame, OLE object or sub-document outside the package:
 * credential leaks start there). Hyperlinks are the one external relationship allowed: every
 * real agreement has them and Word opens none by itself. An attached template (the other
 * classic, remote template injection) is cut off instead of refused: Word on a Mac records
 * the sender's own template folder as `file:////Users/...`, which Windows reads as a network
 * share, and one of the eight corpus agreements has such a link; the package keeps no trace
 * of it. The size of what the zip inflates to is checked before
 * (services/documents/check-expansion.ts).
 */
import type JSZip from 'jszip';

export type PackageRefusal = { kind: 'macro' | 'external'; detail: string };

const HYPERLINK = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';
const ATTACHED_TEMPLATE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate';
const SETTINGS_RELS = 'word/_rels/settings.xml.rels';
const MACRO_PART = /(^|\/)(vbaProject\.bin|vbaData\.xml)$|^word\/activeX\//i;
const MACRO_TYPE = /macroEnabled|vbaProject|activeX/i;

export async function refusalOf(zip: JSZip): Promise<PackageRefusal | null> {
  const names = Object.keys(zip.files);
  const macroPart = names.find((n) => MACRO_PART.test(n));
  if (macroPart) return { kind: 'macro', detail: `file: a macro-enabled document (it holds ${macroPart}) is not accepted` };
  const types = (await zip.file('[Content_Types].xml')?.async('string')) ?? '';
  const macroType = /ContentType="([^"]*)"/g;
  for (let m = macroType.exec(types); m; m = macroType.exec(types))
    if (MACRO_TYPE.test(m[1]!)) return { kind: 'macro', detail: `file: a macro-enabled document (${m[1]}) is not accepted` };
  for (const name of names.filter((n) => n.endsWith('.rels'))) {
    const rels = (await zip.file(name)?.async('string')) ?? '';
    for (const rel of rels.match(/<Relationship\b[^>]*>/g) ?? []) {
      if (!/TargetMode\s*=\s*["']External["']/.test(rel)) continue;
      const type = /Type\s*=\s*["']([^"']*)["']/.exec(rel)?.[1] ?? '';
      if (type === HYPERLINK || (type === ATTACHED_TEMPLATE && name === SETTINGS_RELS)) continue;
      const target = /Target\s*=\s*["']([^"']*)["']/.exec(rel)?.[1] ?? '';
      return {
        kind: 'external',
        detail: `file: an external relationship (${type.split('/').pop()} to ${target.slice(0, 100)} in ${name}) is not accepted`,
      };
    }
  }
  return null;
}

/** Removes an attached template's relationship and reference (refusalOf has let only that one through); true when it did. */
export async function dropAttachedTemplate(zip: JSZip): Promise<boolean> {
  const rels = await zip.file(SETTINGS_RELS)?.async('string');
  if (!rels?.includes(ATTACHED_TEMPLATE)) return false;
  zip.file(
    SETTINGS_RELS,
    rels.replace(/<Relationship\b[^>]*>/g, (rel) => (rel.includes(ATTACHED_TEMPLATE) ? '' : rel)),
  );
  const settings = await zip.file('word/settings.xml')?.async('string');
  if (settings) zip.file('word/settings.xml', settings.replace(/<w:attachedTemplate\b[^>]*\/>/g, ''));
  return true;
}
