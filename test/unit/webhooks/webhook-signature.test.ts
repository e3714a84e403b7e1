import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { serviceSignature, standardWebhookSignature } from '../../../services/webhooks/webhook-signature';
import { repoRoot } from '../../support/processes';

/** The published test vector (docs/api/webhooks.md), as `name: value` lines of its `text` block. */
function readmeVector(): Record<string, string> {
  const readme = readFileSync(path.join(repoRoot, 'docs/api/webhooks.md'), 'utf8');
  const block = /Test vector[^\n]*\n+```text\n([\s\S]*?)\n```/.exec(readme)?.[1];
  if (!block) throw new Error('docs/api/webhooks.md has no webhook test vector');
  return Object.fromEntries(
    block.split('\n').map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}

describe('webhook signatures', () => {
  const v = readmeVector();
  const timestamp = Number(v['webhook-timestamp']);

  it('match the test vector published in the webhooks guide', () => {
    expect(serviceSignature(v.secret!, v.body!)).to.equal(v['X-Service-Signature']);
    expect(standardWebhookSignature(v.secret!, v['webhook-id']!, timestamp, v.body!)).to.equal(v['webhook-signature']);
  });

  it('verify with the Standard Webhooks reference library and its whsec_ form of the secret', () => {
    expect(v['whsec secret']).to.equal(`whsec_${Buffer.from(v.secret!).toString('base64')}`);
    const wh = new Webhook(v['whsec secret']!);
    // The vector's timestamp is old: check the signature itself, past the replay window.
    expect(wh.sign(v['webhook-id']!, new Date(timestamp * 1000), v.body!)).to.equal(v['webhook-signature']);
  });
});
