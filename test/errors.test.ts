import { expect } from 'chai';
import mongoose from 'mongoose';
import { toAppError } from '../api/http/errors';

describe('errors', () => {
  it('a store that could not lock in time (FerretDB SQLITE_BUSY) is a 503 with Retry-After, not a 500', () => {
    const busy = new mongoose.mongo.MongoServerError({ message: '[collection.go:191 sqlite.(*collection).UpdateOne] database is locked (5) (SQLITE_BUSY)', code: 1 });
    const err = toAppError(busy);
    expect(err?.status).to.equal(503);
    expect(err?.headers).to.deep.equal({ 'Retry-After': '1' });
    expect(err?.detail).to.match(/busy/);
    expect(toAppError(new mongoose.mongo.MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).to.equal(undefined);
  });
});
