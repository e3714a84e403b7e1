/** Shapes of input at the edge that every feature checks the same way. */
import { z } from 'zod';
import { ID_PATTERN } from '../models/base';

/** A record id as the store writes it (models/base.ts isObjectId). */
export const objectId = (message = 'must be an id') =>
  z.string().regex(ID_PATTERN, message).meta({ description: 'A 24-character lowercase hex id', example: '665f1c2ab3e4d5f6a7b8c9d0' });
export const idSchema = objectId();

/** Text a person types: trimmed, not empty, bounded. */
export const requiredText = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** What a value outside a fixed set is told. */
export const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/** One of a fixed set of values, and told the set when it is not. */
export const choice = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, oneOf(values));
