/**
 * `page` / `page_size` query parameters as the decisions fix them: defaults 1 and 20,
 * below 1 or not an integer is 400, above 100 is reduced to 100.
 */
import { z } from 'zod';

export const MAX_PAGE_SIZE = 100;

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
  page_size: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, MAX_PAGE_SIZE)),
});
export type PageQuery = z.infer<typeof pageQuery>;

export const skipOf = (q: PageQuery) => (q.page - 1) * q.page_size;
