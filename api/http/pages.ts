/** The answer of a paged list (`pageOf` in openapi.ts describes it): `{ <name>: [...], total, page, page_size }`. */
import type { Response } from 'express';
import type { PageQuery } from '../../platform/lists/pagination';

export function sendPage(res: Response, name: string, q: PageQuery, found: { items: readonly unknown[]; total: number }): void {
  res.json({ [name]: found.items, total: found.total, page: q.page, page_size: q.page_size });
}
