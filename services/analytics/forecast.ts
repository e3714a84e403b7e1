/**
 * Spend forecasting: an ordinary least-squares line through a monthly series, extrapolated
 * `monthsAhead` steps. Pure: services/analytics/spend-report.ts gathers the series, this fits it.
 */

export type Trend = 'increasing' | 'decreasing' | 'stable';

export interface ForecastPoint {
  /** Steps after the last observed month (1 = the month after it). */
  step: number;
  predicted: number;
  /** In [0, 1]; lower for later steps and for noisier series. */
  confidence: number;
}

export interface Forecast {
  points: ForecastPoint[];
  trend: Trend;
  slope: number;
  intercept: number;
  /** Residual standard deviation of the fit. */
  residualStd: number;
}

/**
 * A slope smaller than this share of the series mean per month is noise, not a trend
 * (2 % a month is about 27 % a year).
 */
export const TREND_THRESHOLD = 0.02;
/** Each further month keeps this share of the previous month's confidence, even for a perfect fit. */
export const HORIZON_DECAY = 0.95;

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Fits `series` (oldest first) and forecasts `monthsAhead` points starting `gap + 1`
 * steps after its last value (`gap` skips months that are not forecast, e.g. the
 * incomplete current month).
 */
export function forecastSeries(series: readonly number[], monthsAhead: number, gap = 0): Forecast {
  const n = series.length;
  const xs = series.map((_, i) => i);
  const xMean = n ? (n - 1) / 2 : 0;
  const yMean = n ? series.reduce((a, b) => a + b, 0) / n : 0;
  const sxx = xs.reduce((a, x) => a + (x - xMean) ** 2, 0);
  const slope = sxx > 0 ? xs.reduce((a, x, i) => a + (x - xMean) * (series[i]! - yMean), 0) / sxx : 0;
  const intercept = yMean - slope * xMean;
  // Degrees of freedom n - 2 (two fitted parameters); shorter series count as one.
  const sse = xs.reduce((a, x, i) => a + (series[i]! - (intercept + slope * x)) ** 2, 0);
  const residualStd = Math.sqrt(sse / Math.max(n - 2, 1));
  const scale = Math.abs(yMean);

  const points: ForecastPoint[] = [];
  for (let step = 1; step <= monthsAhead; step++) {
    const x = n - 1 + gap + step;
    // Standard error of a new observation at x: grows with the residual noise and with
    // the distance from the fitted data.
    const se = residualStd * Math.sqrt(1 + (n ? 1 / n : 1) + (sxx > 0 ? (x - xMean) ** 2 / sxx : 1));
    const relativeError = scale > 0 ? se / scale : se > 0 ? 1 : 0;
    // Fewer than three months say little about a trend.
    const sampleFactor = n >= 3 ? 1 : n / 3;
    points.push({
      step,
      predicted: round(Math.max(0, intercept + slope * x), 2),
      confidence: round((sampleFactor * HORIZON_DECAY ** step) / (1 + relativeError), 3),
    });
  }

  const relativeSlope = scale > 0 ? slope / scale : 0;
  const trend: Trend = relativeSlope > TREND_THRESHOLD ? 'increasing' : relativeSlope < -TREND_THRESHOLD ? 'decreasing' : 'stable';
  return { points, trend, slope, intercept, residualStd };
}
