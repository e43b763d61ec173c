// Longer than the ~250 lines most files keep to: the demo data's word lists and locales take most
// of it.
import { allLocales, base, en, Faker } from '@faker-js/faker';
import { timeLabel } from '../leads/time-label.js';

export interface SeedOptions {
  teams: number;
  membersPerTeam: number;
  leads: number;
  seed: string | number;
  firstTeamId?: number;
  firstMemberId?: number;
  firstSubteamId?: number;
  /** reference "now" in ms for timestamps */
  now?: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DEFAULT_NOW = Date.parse('2026-11-01T00:00:00Z');
const HISTORY_DAYS = 540;
/** Lead numbers walk a permutation of the 8-digit integers, so no two generated leads share an identity. */
const UNIQUE_SPACE = 90_000_000;
const UNIQUE_STEP = 48_271_291; // coprime with UNIQUE_SPACE
const NOTES = ['Wants a demo', 'Send pricing for 50 seats', 'Follow up after the fair', 'Budget approved'];
const SUBTEAMS = ['Field Sales', 'Inside Sales', 'Partnerships', 'Events', 'Key Accounts', 'Channel'];
const VERSIONS = ['2', '3', '3.1', '4'];

/** Where teams work: faker locale, dialling code, IANA time zone, city-centre coordinates. */
const CITIES = [
  ['en_US', '+1', 'America/New_York', 40.7128, -74.006],
  ['en_US', '+1', 'America/Chicago', 41.8781, -87.6298],
  ['en_US', '+1', 'America/Los_Angeles', 34.0522, -118.2437],
  ['de', '+49', 'Europe/Berlin', 52.52, 13.405],
  ['de', '+49', 'Europe/Berlin', 48.1351, 11.582],
  ['ja', '+81', 'Asia/Tokyo', 35.6762, 139.6503],
  ['ja', '+81', 'Asia/Tokyo', 34.6937, 135.5023],
  ['zh_CN', '+86', 'Asia/Shanghai', 31.2304, 121.4737],
  ['zh_CN', '+86', 'Asia/Shanghai', 39.9042, 116.4074],
  ['es_MX', '+52', 'America/Mexico_City', 19.4326, -99.1332],
  ['es', '+34', 'Europe/Madrid', 40.4168, -3.7038],
  ['fr', '+33', 'Europe/Paris', 48.8566, 2.3522],
  ['pt_BR', '+55', 'America/Sao_Paulo', -23.5505, -46.6333],
  ['en_IN', '+91', 'Asia/Kolkata', 19.076, 72.8777],
] as const;
type City = (typeof CITIES)[number];
const LOCALES = [...new Set(CITIES.map((c) => c[0]))];
const CITIES_OF = LOCALES.map((l) => CITIES.filter((c) => c[0] === l));
/** CJK names go family name first, and e-mail addresses need a Latin form of it. */
const ROMANIZED: Partial<Record<City[0], string>> = {
  ja: '佐藤:sato 鈴木:suzuki 高橋:takahashi 田中:tanaka 伊藤:ito 渡辺:watanabe 山本:yamamoto 中村:nakamura',
  zh_CN: '王:wang 李:li 张:zhang 刘:liu 陈:chen 杨:yang 黄:huang 赵:zhao 吴:wu 周:zhou',
};

type Rng = () => number;
type Rec = Record<string, unknown>;
type Venue = { lat: number; long: number };
type Pool = ReturnType<typeof buildPool>;
type Person = ReturnType<typeof person>;
type Company = Pool['companies'][number];
type Plan = ReturnType<typeof makePlan>;
type Contact = { pool: Pool; who: Person; company: Company; email: string; phone: string; u: number };

/** sfc32 seeded by an FNV-1a hash: tiny, fast and the same on every platform. */
function makeRng(seed: string): Rng {
  const hash = (salt: number) => {
    let h = 2166136261 ^ salt;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
    return Math.imul(h ^ (h >>> 15), 2246822507);
  };
  let [a, b, c, d] = [hash(1), hash(2), hash(3), hash(4)];
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (((c << 21) | (c >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const gaussian = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const shuffled = <T>(rng: Rng, list: readonly T[]) =>
  list
    .map((v) => [rng(), v] as const)
    .sort((x, y) => x[0] - y[0])
    .map(([, v]) => v);

function cumulative(weights: number[]): Float64Array {
  let sum = 0;
  return Float64Array.from(weights, (w) => (sum += w));
}

function pickWeighted(rng: Rng, cum: Float64Array): number {
  const x = rng() * cum[cum.length - 1]!;
  let [lo, hi] = [0, cum.length - 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cum[mid]! > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function slug(text: string, sep: string): string {
  const ascii = text.normalize('NFKD').replace(/\p{M}/gu, '').replaceAll('ß', 'ss').toLowerCase();
  return ascii.replace(/[^a-z0-9]+/g, sep).replace(/^\W+|\W+$/g, '');
}

/** Faker is slow per call, so each culture's names and words are drawn once into small pools. */
function buildPool(locale: City[0], seed: number) {
  const f = new Faker({ locale: [allLocales[locale], en, base] });
  f.seed(seed);
  const many = <T>(n: number, make: () => T): T[] => Array.from({ length: n }, make);
  const named = (native: string) => ({ native, latin: slug(native, '.') || 'x' });
  const company = () => {
    const name = f.company.name();
    const word = slug(name, '-').split('-').slice(0, 2).join('-');
    return { name, domain: `${word.length >= 3 ? word : f.internet.domainWord()}.test` };
  };
  const romanized = ROMANIZED[locale]?.split(' ').map((s) => s.split(':'));
  return {
    dial: CITIES.find((c) => c[0] === locale)![1],
    familyFirst: romanized !== undefined,
    firsts: many(120, () => named(f.person.firstName())),
    lasts:
      romanized?.map(([native = '', latin = '']) => ({ native, latin })) ??
      many(120, () => named(f.person.lastName())),
    companies: many(60, company),
    titles: many(60, () => f.person.jobTitle()),
    streets: many(60, () => f.location.streetAddress()),
    towns: many(40, () => f.location.city()),
    bios: many(30, () => f.person.bio()),
  };
}

function person(rng: Rng, pool: Pool): { name: string; local: string } {
  const first = pick(rng, pool.firsts);
  const last = pick(rng, pool.lasts);
  if (pool.familyFirst) return { name: `${last.native}${first.native}`, local: last.latin };
  return { name: `${first.native} ${last.native}`, local: `${first.latin}.${last.latin}` };
}

/** The instant local midnight falls on the calendar day that starts at `utcMidnight` in UTC. */
function localMidnight(utcMidnight: number, timeZone: string): number {
  const noon = utcMidnight + 12 * HOUR;
  return utcMidnight - (Date.parse(`${timeLabel(noon, timeZone).replace(' ', 'T')}Z`) - noon);
}

/** A handful of conferences and fairs in the last months: most leads are collected there. */
function eventDays(rng: Rng, timeZone: string, home: Venue, now: number) {
  const days: (Venue & { midnight: number })[] = [];
  const weights: number[] = [];
  const today = Math.floor(now / DAY);
  for (let e = int(rng, 3, 7); e > 0; e--) {
    const first = today - int(rng, 4, HISTORY_DAYS);
    const size = Math.exp(2 * rng());
    const venue = { lat: home.lat + (rng() - 0.5) * 0.3, long: home.long + (rng() - 0.5) * 0.3 };
    for (let d = int(rng, 1, 3) - 1; d >= 0; d--) {
      days.push({ ...venue, midnight: localMidnight((first + d) * DAY, timeZone) });
      weights.push(size);
    }
  }
  return { days, dayWeights: cumulative(weights) };
}

function planTeam(rng: Rng, pool: Pool, city: City, id: number, now: number) {
  const [, , timeZone, lat, long] = city;
  const home = { lat, long };
  const { name, domain } = pick(rng, pool.companies);
  const memberIds: number[] = [];
  return { id, name, domain, timeZone, pool, home, memberIds, ...eventDays(rng, timeZone, home, now) };
}

function planMembers(rng: Rng, pools: Pool[], teams: ReturnType<typeof planTeam>[], o: SeedOptions) {
  const members = [];
  const weights: number[] = [];
  let id = o.firstMemberId ?? 1;
  for (const team of teams) {
    const admins = o.membersPerTeam > 1 && rng() < 0.5 ? 2 : 1;
    for (let j = 0; j < o.membersPerTeam; j++, id++) {
      const { name, local } = person(rng, rng() < 0.85 ? team.pool : pick(rng, pools));
      const pid = `${id}${String(int(rng, 0, 999)).padStart(3, '0')}`;
      const role = j < admins ? 'admin' : 'member';
      members.push({ id, team, name, email: `${local}.${id}@${team.domain}`, role, pid });
      team.memberIds.push(id);
      // Log-normal activity: a few members collect most of the leads.
      weights.push(Math.exp(1.4 * gaussian(rng)));
    }
  }
  return { members, memberWeights: cumulative(weights) };
}

function checkOptions(o: SeedOptions): void {
  const ok = (v: number | undefined, min: number) => v === undefined || (Number.isSafeInteger(v) && v >= min);
  const counts = ok(o.teams, 1) && ok(o.membersPerTeam, 1) && ok(o.leads, 0) && o.leads <= UNIQUE_SPACE;
  if (!counts || !(ok(o.firstTeamId, 1) && ok(o.firstMemberId, 1) && ok(o.firstSubteamId, 1)))
    throw new RangeError(`seed: teams and members ≥ 1, 0 ≤ leads ≤ ${UNIQUE_SPACE}, first ids ≥ 1`);
}

function makePlan(o: SeedOptions) {
  checkOptions(o);
  const rng = makeRng(String(o.seed));
  const now = o.now ?? DEFAULT_NOW;
  const pools = LOCALES.map((l) => buildPool(l, Math.floor(rng() * 2 ** 31)));
  const start = int(rng, 0, LOCALES.length - 1);
  const teams = Array.from({ length: o.teams }, (_, k) => {
    const culture = (start + k) % LOCALES.length;
    const city = pick(rng, CITIES_OF[culture]!);
    return planTeam(rng, pools[culture]!, city, (o.firstTeamId ?? 1) + k, now);
  });
  const members = planMembers(rng, pools, teams, o);
  return { rng, now, pools, teams, ...members, uniqueOffset: int(rng, 0, UNIQUE_SPACE - 1) };
}

function* subteamRecords({ rng, teams }: Plan, firstId: number): Generator<string> {
  let id = firstId;
  for (const team of teams) {
    const ids = shuffled(rng, team.memberIds);
    const names = shuffled(rng, SUBTEAMS);
    const count = int(rng, 1, Math.min(3, ids.length));
    for (let s = 0; s < count; s++) {
      const members = ids.filter((_, j) => j % count === s);
      const admins = [members[0]!];
      const teamAdmin = team.memberIds[0]!;
      if (!members.includes(teamAdmin) && rng() < 0.4) admins.push(teamAdmin);
      yield JSON.stringify({ type: 'subteam', id: id++, teamId: team.id, name: names[s], members, admins });
    }
  }
}

function kindFields(rng: Rng, lead: Rec, scan: boolean, u: number): void {
  if (!scan) {
    lead.isLead = true;
    lead.apptoapp = rng() < 0.55;
    if (rng() < 0.1) lead.url = `https://leadline.test/p/${u}`;
    return;
  }
  lead.isScan = true;
  lead.isRoll = rng() < 0.2;
  lead.card = `scan_${u}.jpg`;
  if (rng() < 0.05) lead.noService = true;
}

const handle = (c: Contact) => `${c.who.local.replaceAll('.', '-')}-${c.u.toString(36)}`;
/** Optional contact members: the share of leads that have each, and how its value is made. */
const CONTACT_FIELDS: readonly (readonly [string, number, (c: Contact, rng: Rng) => string])[] = [
  ['name', 0.97, (c) => c.who.name],
  ['company', 0.7, (c) => c.company.name],
  ['jobTitle', 0.6, (c, rng) => pick(rng, c.pool.titles)],
  ['email', 0.65, (c) => c.email],
  ['number', 0.55, (c) => c.phone],
  ['address', 0.2, (c, rng) => `${pick(rng, c.pool.streets)}, ${pick(rng, c.pool.towns)}`],
  ['website', 0.2, (c) => `https://www.${c.company.domain}`],
  ['linkedIn', 0.15, (c) => `https://www.linkedin.com/in/${handle(c)}`],
  ['note', 0.15, (_, rng) => pick(rng, NOTES)],
  ['bio', 0.1, (c, rng) => pick(rng, c.pool.bios)],
  ['location', 0.2, (c, rng) => pick(rng, c.pool.towns)],
  ['image', 0.15, (c) => `https://img.leadline.test/${c.u}.jpg`],
  ['views', 0.2, (_, rng) => String(int(rng, 0, 400))],
  ['pops', 0.15, (_, rng) => String(int(rng, 0, 40))],
  ['pro', 0.1, (_, rng) => String(int(rng, 0, 1))],
  ['mode', 0.1, (_, rng) => String(int(rng, 0, 3))],
  ['v', 0.25, (_, rng) => pick(rng, VERSIONS)],
];

function contactFields(rng: Rng, lead: Rec, c: Contact): void {
  // A scanned card's e-mail or phone number is its id, so the card carries it.
  if (lead.id === c.email) lead.email = c.email;
  if (lead.id === c.phone) lead.number = c.phone;
  for (const [field, p, value] of CONTACT_FIELDS) {
    // A few members were collected empty and are kept as "".
    if (rng() < p && lead[field] === undefined) lead[field] = rng() < 0.015 ? '' : value(c, rng);
  }
  if (rng() < 0.08) {
    const twitter = `@${handle(c).replaceAll('-', '_')}`;
    lead.fullContact =
      rng() < 0.5 ? { twitter } : { twitter, linkedin: `https://www.linkedin.com/in/${handle(c)}` };
  }
}

/** About 40% consent with coordinates; about 10% stored coordinates without consent (never to be shown). */
function locationFields(rng: Rng, lead: Rec, venue: Venue, spread: number): void {
  const r = rng();
  if (r < 0.5) {
    lead.lat = (venue.lat + (rng() - 0.5) * spread).toFixed(6);
    lead.long = (venue.long + (rng() - 0.5) * spread).toFixed(6);
  }
  if (r < 0.4) lead.locationShared = true;
  else if (rng() < 0.5) lead.locationShared = false;
}

const LEAD_MEMBERS = [
  ...['type', 'id', 'epoch', 'userId', 'userEmail', 'time', 'isManual', 'isLead', 'apptoapp', 'isScan'],
  ...['isRoll', 'card', 'noService', 'url', ...CONTACT_FIELDS.map(([f]) => f), 'fullContact', 'lat', 'long'],
  'locationShared',
];
/** All members up front, unset: one object shape keeps V8 fast, and JSON.stringify skips the unset ones. */
const LEAD_TEMPLATE: Rec = Object.fromEntries(LEAD_MEMBERS.map((k) => [k, undefined]));

function makeLead(plan: Plan, i: number): Rec {
  const { rng } = plan;
  const member = plan.members[pickWeighted(rng, plan.memberWeights)]!;
  const team = member.team;
  const day = rng() < 0.88 ? team.days[pickWeighted(rng, team.dayWeights)] : undefined;
  const epoch = day
    ? day.midnight + Math.floor(HOUR * (9 + 4.5 * (rng() + rng())))
    : plan.now - Math.floor(rng() * HISTORY_DAYS * DAY);
  const u = 10_000_000 + ((i * UNIQUE_STEP + plan.uniqueOffset) % UNIQUE_SPACE);
  const pool = rng() < 0.75 ? team.pool : pick(rng, plan.pools);
  const who = person(rng, pool);
  const company = pick(rng, pool.companies);
  const email = `${who.local}.${u}@${company.domain}`;
  const phone = `${pool.dial} ${String(u).slice(0, 3)} ${String(u).slice(3)}`;
  const scan = rng() < 0.4;
  const id = scan ? (rng() < 0.6 ? email : phone) : String(u);
  const lead: Rec = { ...LEAD_TEMPLATE, type: 'lead', id, epoch, userId: member.id };
  if (rng() < 0.3) lead.userEmail = member.email;
  lead.isManual = rng() < 0.08;
  kindFields(rng, lead, scan, u);
  contactFields(rng, lead, { pool, who, company, email, phone, u });
  locationFields(rng, lead, day ?? team.home, day ? 0.004 : 0.2);
  if (rng() < 0.03) lead.time = timeLabel(epoch, team.timeZone).slice(0, 16);
  return lead;
}

/**
 * Realistic synthetic data as NDJSON import records (docs/import-format.md): teams, members,
 * subteams, then leads. Deterministic for the same options; memory does not grow with `leads`.
 */
export function* seedRecords(opts: SeedOptions): Generator<string> {
  const plan = makePlan(opts);
  for (const { id, name, timeZone } of plan.teams) yield JSON.stringify({ type: 'team', id, name, timeZone });
  for (const { id, team, email, name, role, pid } of plan.members) {
    yield JSON.stringify({ type: 'member', id, teamId: team.id, email, name, role, pid });
  }
  yield* subteamRecords(plan, opts.firstSubteamId ?? 1);
  for (let i = 0; i < opts.leads; i++) yield JSON.stringify(makeLead(plan, i));
}
