import { expect } from 'chai';
import { forecastSeries, HORIZON_DECAY } from '../../../services/analytics/forecast';
import { monthRange, spendByMonth } from '../../../services/analytics/spend';

describe('forecast (pure)', () => {
  it('continues a linear series exactly, as increasing, with confidence falling only by horizon', () => {
    const f = forecastSeries([100, 200, 300, 400, 500, 600], 4);
    expect(f.trend).to.equal('increasing');
    expect(f.points.map((p) => p.predicted)).to.deep.equal([700, 800, 900, 1000]);
    expect(f.points.map((p) => p.step)).to.deep.equal([1, 2, 3, 4]);
    expect(f.residualStd).to.equal(0);
    expect(f.points[0]!.confidence).to.be.closeTo(HORIZON_DECAY, 0.001);
    expect(f.points[3]!.confidence).to.be.closeTo(HORIZON_DECAY ** 4, 0.001);
  });

  it('skips `gap` months before the first point', () => {
    expect(forecastSeries([10, 20, 30], 2, 1).points.map((p) => p.predicted)).to.deep.equal([50, 60]);
  });

  it('calls a flat series stable and a falling one decreasing, never predicting below zero', () => {
    const flat = forecastSeries([500, 500, 500, 500], 3);
    expect(flat.trend).to.equal('stable');
    expect(flat.points.map((p) => p.predicted)).to.deep.equal([500, 500, 500]);
    const falling = forecastSeries([900, 700, 500, 300], 6);
    expect(falling.trend).to.equal('decreasing');
    expect(falling.points.map((p) => p.predicted)).to.deep.equal([100, 0, 0, 0, 0, 0]);
    // A wobble of 1 % of the mean is not a trend.
    expect(forecastSeries([1000, 1010, 1000, 1010, 1000, 1010], 1).trend).to.equal('stable');
  });

  it('gives confidence in [0, 1], falling with horizon and lower for a noisier series', () => {
    const noisy = forecastSeries([100, 900, 200, 800, 300, 700, 400], 12);
    const smooth = forecastSeries([480, 510, 490, 505, 495, 500, 498], 12);
    for (const f of [noisy, smooth]) {
      const c = f.points.map((p) => p.confidence);
      for (const x of c) expect(x).to.be.within(0, 1);
      for (let i = 1; i < c.length; i++) expect(c[i], `step ${i + 1}`).to.be.below(c[i - 1]!);
      for (const p of f.points) expect(p.predicted).to.be.at.least(0);
    }
    noisy.points.forEach((p, i) => expect(p.confidence).to.be.below(smooth.points[i]!.confidence));
    expect(noisy.points[0]!.confidence).to.be.below(0.5);
    expect(smooth.points[0]!.confidence).to.be.above(0.9);
  });

  it('has zero confidence without history and little with one month', () => {
    const none = forecastSeries([], 2);
    expect(none.trend).to.equal('stable');
    expect(none.points).to.deep.equal([
      { step: 1, predicted: 0, confidence: 0 },
      { step: 2, predicted: 0, confidence: 0 },
    ]);
    const one = forecastSeries([1200], 1);
    expect(one.points[0]!.predicted).to.equal(1200);
    expect(one.points[0]!.confidence).to.be.below(0.5);
  });
});

describe('spend by month (pure)', () => {
  it('buckets by start date, else creation date, with zeros for empty months', () => {
    const now = new Date('2026-03-15T10:00:00Z');
    const months = monthRange(now, 4);
    expect(months).to.deep.equal(['2025-12', '2026-01', '2026-02', '2026-03']);
    expect(monthRange(now, 2, 2)).to.deep.equal(['2026-04', '2026-05']);
    const data = spendByMonth(
      [
        { value: 100.1, start_date: new Date('2026-01-31T00:00:00Z'), created_at: new Date('2026-03-01T00:00:00Z') },
        { value: 0.2, start_date: new Date('2026-01-01T00:00:00Z'), created_at: new Date('2026-03-01T00:00:00Z') },
        { value: 50, start_date: null, created_at: new Date('2026-03-02T00:00:00Z') },
        { value: 999, start_date: new Date('2025-01-01T00:00:00Z'), created_at: new Date('2026-03-01T00:00:00Z') },
      ],
      months,
    );
    expect(data).to.deep.equal([
      { month: '2025-12', spend: 0, contracts: 0 },
      { month: '2026-01', spend: 100.3, contracts: 2 },
      { month: '2026-02', spend: 0, contracts: 0 },
      { month: '2026-03', spend: 50, contracts: 1 },
    ]);
  });
});
