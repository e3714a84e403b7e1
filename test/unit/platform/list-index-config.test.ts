/** The list index's settings (platform/config.ts): what LIST_INDEX* accept and refuse. */
import { expect } from 'chai';
import { loadConfig } from '../../../platform/config';

describe('list index configuration', () => {
  const config = (env: Record<string, string> = {}) => loadConfig({ NODE_ENV: 'test', ...env });

  it('defaults to auto, the main Redis and 250,000 records a list', () => {
    const c = config();
    expect([c.LIST_INDEX, c.LIST_INDEX_REDIS_URL, c.LIST_INDEX_MAX_RECORDS]).to.deep.equal(['auto', '', 250_000]);
  });

  it('takes on, off, a Redis URL with its database and a bound', () => {
    const c = config({ LIST_INDEX: 'off', LIST_INDEX_REDIS_URL: 'redis://127.0.0.1:6379/1', LIST_INDEX_MAX_RECORDS: '5' });
    expect([c.LIST_INDEX, c.LIST_INDEX_REDIS_URL, c.LIST_INDEX_MAX_RECORDS]).to.deep.equal(['off', 'redis://127.0.0.1:6379/1', 5]);
    expect(config({ LIST_INDEX: 'on' }).LIST_INDEX).to.equal('on');
  });

  it('refuses another mode, a URL that is not Redis, and a bound that is not a positive count', () => {
    expect(() => config({ LIST_INDEX: 'yes' })).to.throw(/LIST_INDEX/);
    expect(() => config({ LIST_INDEX_REDIS_URL: 'http://127.0.0.1:6379' })).to.throw(/LIST_INDEX_REDIS_URL: must be a redis/);
    expect(() => config({ LIST_INDEX_MAX_RECORDS: '0' })).to.throw(/LIST_INDEX_MAX_RECORDS/);
    expect(() => config({ LIST_INDEX_MAX_RECORDS: 'many' })).to.throw(/LIST_INDEX_MAX_RECORDS/);
  });
});
