/**
 * The pure part of a compliance scan: which rules a contract text breaks, and which AI
 * flags add findings the rules do not already cover. No I/O; the scan activity stores
 * the findings as tasks.
 */
import type { TaskPriority } from '../../models/compliance-task';
import { COMPLIANCE_RULES, GLOBAL_JURISDICTION, type CompiledRule } from './rules';

export interface Finding {
  /** The rule id, or `ai-<slug>` for an AI finding; one open task per contract and rule_id. */
  rule_id: string;
  regulation_type: string;
  jurisdiction: string;
  title: string;
  description: string;
  priority: TaskPriority;
  due_in_days: number;
}

/** Rules a scan of these jurisdictions runs: theirs, plus the GLOBAL (industry) ones. */
export function rulesFor(jurisdictions: readonly string[], rules: readonly CompiledRule[] = COMPLIANCE_RULES): CompiledRule[] {
  const wanted = new Set(jurisdictions);
  return rules.filter((r) => r.jurisdiction === GLOBAL_JURISDICTION || wanted.has(r.jurisdiction));
}

/** The passage that made the rule relevant, so the task says where to look. */
function evidence(text: string, re: RegExp): string | null {
  const m = re.exec(text);
  if (!m) return null;
  const start = Math.max(0, m.index - 60);
  const end = Math.min(text.length, m.index + m[0].length + 60);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
}

/**
 * Findings of the rule set over one contract text: a rule is broken when all its
 * `applies_when` patterns match and none of its `satisfied_by` patterns does.
 */
export function evaluateContract(
  text: string,
  jurisdictions: readonly string[],
  rules: readonly CompiledRule[] = COMPLIANCE_RULES,
): Finding[] {
  return rulesFor(jurisdictions, rules)
    .filter((r) => r.appliesWhen.every((re) => re.test(text)) && !r.satisfiedBy.some((re) => re.test(text)))
    .map((r) => {
      const seen = evidence(text, r.appliesWhen[0]!);
      return {
        rule_id: r.id,
        regulation_type: r.regulation_type,
        jurisdiction: r.jurisdiction,
        title: r.title,
        description: seen ? `${r.description} Found: "${seen}"` : r.description,
        priority: r.priority,
        due_in_days: r.due_in_days,
      };
    });
}

const AI_DUE_IN_DAYS = 30;
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

/**
 * Findings from the AI's compliance flags (`"HIPAA: ..."`, `"GDPR/CCPA: ..."`). The rules are
 * authoritative where they apply: a flag adds a finding only for a regulation named in it
 * that the scan covers, whose rules did not apply to this text at all (a gap in the rule
 * set). Flags naming no known regulation are dropped.
 */
export function aiFindings(
  text: string,
  flags: readonly string[],
  jurisdictions: readonly string[],
  rules: readonly CompiledRule[] = COMPLIANCE_RULES,
): Finding[] {
  const inScope = rulesFor(jurisdictions, rules);
  const out: Finding[] = [];
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    if (colon < 0) continue;
    const names = flag
      .slice(0, colon)
      .split('/')
      .map((n) => n.trim().toUpperCase());
    const message = flag.slice(colon + 1).trim();
    for (const name of names) {
      const regRules = inScope.filter((r) => r.regulation_type.toUpperCase() === name);
      if (!regRules.length || regRules.some((r) => r.appliesWhen.every((re) => re.test(text)))) continue;
      const rule = regRules[0]!;
      out.push({
        rule_id: `ai-${slug(`${name} ${message}`)}`,
        regulation_type: rule.regulation_type,
        jurisdiction: rule.jurisdiction,
        title: `${rule.regulation_type}: ${message}`,
        description: `The AI analysis flagged: ${flag}`,
        priority: 'medium',
        due_in_days: AI_DUE_IN_DAYS,
      });
    }
  }
  return out;
}
