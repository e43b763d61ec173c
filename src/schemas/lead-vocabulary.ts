/**
 * The closed lists the wire contracts name and the domain works with. They live here, at the
 * bottom of the layering (domain → schemas), so the schemas import nothing from the domain.
 */

/** How a lead was collected, as v2 names it (docs/v2.md). */
export const LEAD_SOURCES = [
  'APP_TO_APP',
  'PROFILE_CONNECTION',
  'BUSINESS_CARD_SCAN',
  'QR_CODE_SCAN',
  'MANUAL',
] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];

/** The v2 `systemFields` a search `query` may name, in the order the stores keep their text. */
export const TEXT_FIELDS = [
  'firstName',
  'lastName',
  'fullName',
  'email',
  'companyName',
  'jobTitle',
  'note',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];
