/** Search text from clients matched literally: regex characters lose their meaning. */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** A case-insensitive "contains" matcher for list searches (a RegExp, so no `$` operator is built from input). */
export const containsText = (text: string) => new RegExp(escapeRegex(text), 'i');
