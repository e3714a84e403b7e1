/** The zod shape of a record id at the edge: what the store writes (models/base.ts isObjectId). */
import { z } from 'zod';
import { ID_PATTERN } from '../models/base';

export const objectId = (message = 'must be an id') =>
  z.string().regex(ID_PATTERN, message).meta({ description: 'A 24-character lowercase hex id', example: '665f1c2ab3e4d5f6a7b8c9d0' });
export const idSchema = objectId();
