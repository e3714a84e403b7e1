/**
 * Every mongoose middleware of every model, listed: models/ holds schemas and views, so no
 * middleware may do work in another engine. Mongoose's own hooks (timestamps, subdocuments,
 * sharding, transactions) are known by name, from a probe model compiled here; every other
 * hook is the project's and must be one of ALLOWED. A new hook fails this test until it is
 * reviewed; what a write sets off belongs in the use case or an outbox consumer
 * (services/wiring.ts).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import mongoose, { Schema } from 'mongoose';

interface Hook {
  fn: (...args: unknown[]) => unknown;
}
type Hooks = { s: { hooks: { _pres: Map<string, Hook[]>; _posts: Map<string, Hook[]> } } };

const MODELS = path.join(__dirname, '../../../models');

/**
 * Project hooks still allowed, by model: the write announcements the list index follows
 * (models/writes.ts), the one follower left of issue 39's three; they reach Redis and the
 * pending marks. Nothing else: the auth cache and the search index are told by use cases.
 */
const ALLOWED = new Set(['Contract', 'ComplianceTask', 'Document', 'Event', 'Signature', 'Vendor', 'WebhookDelivery']);

/** Every hook of a model: `pre save`, `post insertMany`, ..., with the function. */
function hooksOf(name: string): Array<{ at: string; fn: Hook['fn'] }> {
  const { _pres, _posts } = (mongoose.model(name).schema as unknown as Hooks).s.hooks;
  return [
    ...[..._pres].flatMap(([op, list]) => list.map((h) => ({ at: `pre ${op}`, fn: h.fn }))),
    ...[..._posts].flatMap(([op, list]) => list.map((h) => ({ at: `post ${op}`, fn: h.fn }))),
  ];
}

describe('model middleware', () => {
  before(async () => {
    for (const file of readdirSync(MODELS).filter((f) => f.endsWith('.ts'))) await import(path.join(MODELS, file));
  });

  it("lists every middleware: mongoose's own, and the project's on the allowed models only", () => {
    // Mongoose's built-in hooks, as it adds them to a schema with timestamps and subdocuments.
    mongoose.model(
      'MiddlewareProbe',
      new Schema({ one: new Schema({ a: String }), many: [new Schema({ b: String })] }, { timestamps: true }),
    );
    const builtIn = new Set(hooksOf('MiddlewareProbe').map((h) => h.fn.name));
    mongoose.deleteModel('MiddlewareProbe');
    expect(builtIn).to.include('timestampsPreSave');

    const project = mongoose
      .modelNames()
      .flatMap((model) => hooksOf(model).flatMap(({ at, fn }) => (builtIn.has(fn.name) ? [] : [{ model, at }])));
    // Each is listed when this fails, with its model and where it runs.
    const outside = project.filter((h) => !ALLOWED.has(h.model)).map((h) => `${h.model}: ${h.at}`);
    expect(outside, 'middleware outside the allowed models').to.deep.equal([]);
    expect([...new Set(project.map((h) => h.model))].sort()).to.deep.equal([...ALLOWED].sort());
  });
});
