/** The shapes of what a person types to identify themselves, checked the same everywhere. */
import { z } from 'zod';

/** Addresses compare lowercased: one account per mailbox whatever the capitals. */
export const emailAddress = z
  .email()
  .max(254)
  .transform((e) => e.toLowerCase());
export const newPassword = z.string().min(8, 'must be at least 8 characters').max(256);
