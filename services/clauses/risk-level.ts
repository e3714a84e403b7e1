/** Risk levels from 0–100 scores, one rule for contracts and vendors (api-decisions: <25 low, <50 medium, <75 high, else critical). */
import type { RiskLevel } from '../../models/contract';

export function riskLevel(score: number): RiskLevel {
  if (score < 25) return 'low';
  if (score < 50) return 'medium';
  if (score < 75) return 'high';
  return 'critical';
}
