/**
 * The tags of a template, checked against what it declares (pure). Tags sit in the text of
 * a paragraph as Word shows it, whatever runs Word split that text into (docxtemplater joins
 * a paragraph's runs the same way), so a tag split across runs is found and rendered. What
 * cannot be rendered is reported with where it sits:
 * - a tag that runs over the end of its paragraph (opened in one, closed in another), or an
 *   orphan `}}`;
 * - a malformed tag: anything but `{{name}}`, `{{name.field}}`, `{{#name}}`, `{{^name}}`,
 *   `{{/name}}` (no expression, no spaces inside names, no filters);
 * - an unknown variable, field or clause, a section that is not closed or closes another;
 * - a section on a variable that is not a condition (`yes_no`, an optional variable) or rows.
 * `{{clause.<type>}}` places the clause of that type the template declares.
 */
import { docxParagraphs, type DocxParagraph } from '../../platform/docx/paragraphs';
import { PARTY_FIELDS, type VariableDef } from '../clause-library/variables';

export interface TagProblem {
  /** "paragraph 4 of the body", "paragraph 1 of header1.xml" */
  where: string;
  tag: string;
  problem: string;
}

export interface TemplatePart {
  /** The zip entry, e.g. word/document.xml. */
  file: string;
  xml: string;
}

const whereOf = (file: string, p: DocxParagraph) => {
  const part = file === 'word/document.xml' ? 'the body' : file.replace(/^word\//, '');
  const text = p.text.replace(/\s+/g, ' ').trim();
  return `paragraph ${p.index} of ${part}${p.inTable ? ' (in a table)' : ''}: "${text.length > 60 ? `${text.slice(0, 57)}...` : text}"`;
};

const TAG = /^(?<kind>[#^/]?)(?<name>[A-Za-z_][A-Za-z0-9_]*)(?:\.(?<field>[A-Za-z_][A-Za-z0-9_]*))?$/;

interface Open {
  name: string;
  where: string;
  tag: string;
}

/** Checks every tag of the parts; an empty list means the template renders. */
export function checkTags(parts: readonly TemplatePart[], defs: readonly VariableDef[], clauseTypes: readonly string[]): TagProblem[] {
  const problems: TagProblem[] = [];
  const byName = new Map(defs.map((d) => [d.name, d]));
  for (const { file, xml } of parts) {
    const open: Open[] = [];
    for (const p of docxParagraphs(xml)) {
      const where = whereOf(file, p);
      const text = p.text;
      let at = 0;
      for (;;) {
        const start = text.indexOf('{{', at);
        const stray = text.indexOf('}}', at);
        if (stray !== -1 && (start === -1 || stray < start)) {
          problems.push({
            where,
            tag: text.slice(Math.max(at, stray - 20), stray + 2),
            problem: 'closes a tag that was not opened in this paragraph',
          });
          at = stray + 2;
          continue;
        }
        if (start === -1) break;
        const end = text.indexOf('}}', start + 2);
        const nextOpen = text.indexOf('{{', start + 2);
        if (end === -1 || (nextOpen !== -1 && nextOpen < end)) {
          const cut = nextOpen !== -1 && (end === -1 || nextOpen < end) ? nextOpen : text.length;
          problems.push({
            where,
            tag: text.slice(start, Math.min(cut, start + 40)),
            problem:
              'is not closed in this paragraph (a tag must sit in one paragraph; Word may have split it across paragraphs or fields)',
          });
          at = cut;
          continue;
        }
        at = end + 2;
        const raw = text.slice(start, at);
        const inner = text.slice(start + 2, end).trim();
        const m = TAG.exec(inner);
        if (!m?.groups) {
          problems.push({
            where,
            tag: raw,
            problem: 'is malformed: a tag is {{name}}, {{name.field}}, {{#name}}, {{^name}} or {{/name}}, never an expression',
          });
          continue;
        }
        const { kind, name, field } = m.groups as { kind: string; name: string; field?: string };
        const loopColumns = open.flatMap((o) => byName.get(o.name)?.columns ?? []).map((c) => c.name);
        if (kind === '/') {
          const top = open.pop();
          if (!top) problems.push({ where, tag: raw, problem: 'closes a section that is not open' });
          else if (top.name !== name) {
            problems.push({ where, tag: raw, problem: `closes ${name} but the open section is ${top.name} (opened at ${top.where})` });
            open.push(top);
          }
          continue;
        }
        if (kind) {
          const def = byName.get(name);
          if (field) problems.push({ where, tag: raw, problem: 'a section names a variable, not a field' });
          else if (!def)
            problems.push({
              where,
              tag: raw,
              problem: `names no declared variable (declared: ${[...byName.keys()].join(', ') || 'none'})`,
            });
          else if (!(def.type === 'yes_no' || def.type === 'rows' || !def.required))
            problems.push({
              where,
              tag: raw,
              problem: `a section needs a yes_no, rows or optional variable; ${name} is a required ${def.type}`,
            });
          open.push({ name, where, tag: raw });
          continue;
        }
        if (name === 'clause') {
          if (!field || !clauseTypes.includes(field))
            problems.push({ where, tag: raw, problem: `places no declared clause (declared: ${clauseTypes.join(', ') || 'none'})` });
          continue;
        }
        if (!field && loopColumns.includes(name)) continue;
        const def = byName.get(name);
        if (!def) {
          problems.push({ where, tag: raw, problem: `names no declared variable (declared: ${[...byName.keys()].join(', ') || 'none'})` });
        } else if (field && !(def.type === 'party' && (PARTY_FIELDS as readonly string[]).includes(field))) {
          problems.push({
            where,
            tag: raw,
            problem:
              def.type === 'party' ? `a party has the fields ${PARTY_FIELDS.join(', ')}` : `${name} is a ${def.type}; it has no fields`,
          });
        } else if (!field && def.type === 'party') {
          problems.push({ where, tag: raw, problem: `${name} is a party: name one of its fields, e.g. {{${name}.name}}` });
        } else if (def.type === 'rows') {
          problems.push({ where, tag: raw, problem: `${name} is rows: repeat them with {{#${name}}}...{{/${name}}} around a table row` });
        }
      }
    }
    for (const o of open) problems.push({ where: o.where, tag: o.tag, problem: 'opens a section that is never closed' });
  }
  return problems;
}

/** The problems as one `detail`, one per line. */
export const describeTagProblems = (problems: readonly TagProblem[]) =>
  `The template has ${problems.length} tag problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `- ${p.tag} at ${p.where}: ${p.problem}`).join('\n')}`;
