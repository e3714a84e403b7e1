/**
 * Search attributes that let an operator find a record's workflows in the Temporal Web UI
 * (e.g. `RecordKind = "webhook-delivery" AND OrganizationId = "..."`). Ids and kinds only:
 * search attributes are stored unencrypted, so no personal data goes here.
 * The dev server registers them at start (scripts/stack.sh); production registers them
 * once with `temporal operator search-attribute create`.
 */
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';

export const OrganizationId = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);
export const RecordId = defineSearchAttributeKey('RecordId', SearchAttributeType.KEYWORD);
export const RecordKind = defineSearchAttributeKey('RecordKind', SearchAttributeType.KEYWORD);

export function recordSearchAttributes(kind: string, organizationId: string, recordId: string): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: RecordKind, value: kind },
    { key: OrganizationId, value: organizationId },
    { key: RecordId, value: recordId },
  ]);
}
