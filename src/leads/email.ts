/**
 * An e-mail address as leadline compares it (docs/v2.md "Find duplicates", docs/privacy.md
 * "Subject access"): surrounding space trimmed, lower case. `Anna@X.test ` and `anna@x.test` are
 * one person's address; nothing else is folded (no accents removed, no `+tag` dropped).
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
