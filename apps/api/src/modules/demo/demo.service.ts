import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  AttendeeAnswer,
  CheckinDirection,
  PayoutStatus,
  TestDataReset,
} from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { generateKey, revokeKey } from '../api-keys/api-key.service';
import { recordCheckin } from '../checkins/checkin.service';
import { createEvent, updateEvent } from '../events/event.service';
import { bookingFee, cancelOrder, issueOrder, placeOrder } from '../orders/order.service';
import { recordPayout, type PayoutInput } from '../payouts/payout.service';
import { environmentOf } from '../organisations/organisation.service';
import { ticketList } from '../tickets/ticket.service';
import { createTier, updateTier } from '../tiers/tier.service';

/** What the sample data holds, by kind: what a test environment's reset answers. */
export type SeedCounts = TestDataReset;

export const DEFAULT_DEMO_EVENTS = 6;
export const MAX_DEMO_EVENTS = 60;
const SEED_CONCURRENCY = 4;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------
// Randomness: a small seeded generator, so the same call produces the same shape of data (ids,
// codes and references still come from the services' CSPRNG).

type Rng = () => number;

/** mulberry32: tiny, fast and good enough for sample data. */
function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (rng: Rng, min: number, max: number): number => min + (max - min) * rng();
const intBetween = (rng: Rng, min: number, max: number): number =>
  Math.floor(between(rng, min, max + 1));
const chance = (rng: Rng, probability: number): boolean => rng() < probability;

/** `items[index]`, which this file's own tables always hold: a miss is a mistake here, named. */
function itemAt<T>(items: readonly T[], index: number, what: string): T {
  const item = items[index];
  if (item === undefined) throw new Error(`demo data: no ${what} at index ${index}`);
  return item;
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return itemAt(items, Math.floor(rng() * items.length), 'item to pick');
}

function weighted<T>(rng: Rng, entries: readonly (readonly [T, number])[]): T {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = rng() * total;
  for (const [value, weight] of entries) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return itemAt(entries, entries.length - 1, 'weighted entry')[0];
}

// ---------------------------------------------------------------------------
// People

/** A comma-separated list, written as a block of text so it stays compact. */
const list = (text: string): readonly string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const FIRST_NAMES = list(`
  Aoife, Liam, Sophie, Lukas, Emma, Mateo, Chloé, Noah, Hannah, Finn, Amelia, Oliver, Freya,
  Jonas, Isla, Luca, Mia, Elias, Zara, Tomás, Ingrid, Mohammed, Priya, Kwame, Yuki, Sven, Marta,
  Pieter, Anouk, Ciarán, Niamh, Rafael, Lea, Julien, Camille, Matteo, Giulia, Jakub, Zofia,
  Oskar, Astrid, Emil, Nora, Hugo, Inès, Daniel, Sara, Ravi, Aisha, Kofi, Elena, Andrés, Lucía,
  Femke, Daan, Ruth, Callum, Eilidh, Owen, Grace, Ben, Charlotte, James, Olivia, Samuel, Leonie,
  Max, Anna, David, Laura
`);

const LAST_NAMES = list(`
  Murphy, Schmidt, Müller, García, Rossi, Dubois, Jansen, de Vries, Kowalski, Nowak, Andersson,
  Nielsen, O'Brien, Kelly, Walsh, Smith, Jones, Taylor, Brown, Wilson, Evans, Thomas, Roberts,
  Khan, Patel, Singh, Okafor, Mensah, Tanaka, Fischer, Weber, Wagner, Becker, Hoffmann, Martin,
  Bernard, Lefebvre, Moreau, Bianchi, Romano, Silva, Santos, Fernández, López, Bakker, Visser,
  Lindqvist, Hansen, Berg, MacDonald, Campbell, Stewart, Novak, Horvat, Costa, Ferreira, Byrne,
  Doyle, Lambert, Peeters
`);

const COMPANIES = list(`
  Brightwave Analytics, Northwind Labs, Kestrel Software, Bluefin Payments, Harbour & Pine,
  Lumen Health, Tidewater Logistics, Copperleaf Studio, Mosaic Data, Fieldstone Energy,
  Quayside Media, Arcadia Robotics, Pinecrest Insurance, Silverline Travel, Greenhouse Ventures,
  Orbit Mobility, Foxglove Design, Ironbridge Consulting, Saltmarsh Games, Cobalt Security,
  Meridian Bank, Wildflower Foods, Larkspur AI, Beacon Learning, Granite Cloud, Parcel Street,
  Riverstone Legal, Atlas Freight, Nimbus Retail, Juniper Biotech
`);

/** Lower-case ASCII for e-mail addresses: no accents, spaces or apostrophes. */
const asciiSlug = (text: string, separator = ''): string =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' ')
    .replace(/[^a-z0-9]+/g, separator)
    .replace(/^-+|-+$/g, '');

// Addresses use reserved example domains (RFC 2606), so demo data can never mail a real person.
const companyDomain = (company: string): string => `${asciiSlug(company, '-')}.example`;
const PERSONAL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

interface Person {
  firstName: string;
  lastName: string;
  email: string | null;
  company: string | null;
}

function personalEmail(rng: Rng, first: string, last: string): string {
  const f = asciiSlug(first);
  const l = asciiSlug(last);
  const local = weighted(rng, [
    [`${f}.${l}`, 5],
    [`${f}${l}`, 2],
    [`${f[0]}${l}`, 2],
    [`${f}.${l}${intBetween(rng, 70, 99)}`, 1],
  ]);
  return `${local}@${pick(rng, PERSONAL_DOMAINS)}`;
}

function makePerson(rng: Rng, company: string | null): Person {
  const firstName = pick(rng, FIRST_NAMES);
  const lastName = pick(rng, LAST_NAMES);
  const email = company
    ? `${asciiSlug(firstName)}.${asciiSlug(lastName)}@${companyDomain(company)}`
    : personalEmail(rng, firstName, lastName);
  return { firstName, lastName, email, company };
}

// ---------------------------------------------------------------------------
// Questions asked at checkout

interface Question {
  question: string;
  answers: readonly (readonly [string, number])[];
}

const DIETARY: Question = {
  question: 'Dietary requirements',
  answers: [
    ['None', 62],
    ['Vegetarian', 16],
    ['Vegan', 8],
    ['Gluten-free', 5],
    ['Halal', 3],
    ['Nut allergy', 3],
    ['Lactose-free', 2],
    ['Kosher', 1],
  ],
};

const TSHIRT: Question = {
  question: 'T-shirt size',
  answers: [
    ['XS', 5],
    ['S', 18],
    ['M', 30],
    ['L', 27],
    ['XL', 14],
    ['XXL', 6],
  ],
};

const HEARD_FROM: Question = {
  question: 'How did you hear about us?',
  answers: [
    ['A colleague', 30],
    ['Newsletter', 20],
    ['LinkedIn', 18],
    ['Meetup.com', 12],
    ['Search engine', 10],
    ['I came last year', 10],
  ],
};

const ACCESSIBILITY: Question = {
  question: 'Accessibility requirements',
  answers: [
    ['None', 92],
    ['Step-free access', 3],
    ['Wheelchair space', 2],
    ['Hearing loop', 2],
    ['Reserved seat near the exit', 1],
  ],
};

const answer = (rng: Rng, questions: readonly Question[]): AttendeeAnswer[] =>
  questions.map((q) => ({ question: q.question, answer: weighted(rng, q.answers) }));

// ---------------------------------------------------------------------------
// Event templates: the first six cover every state; more events repeat them in later editions.

type Kind = 'completed' | 'live' | 'upcoming' | 'draft' | 'cancelled';

interface TierTemplate {
  name: string;
  description?: string;
  /** Minor units. */
  price: number;
  quantity?: number;
  maxPerOrder?: number;
  status?: 'on_sale' | 'hidden';
  /** Relative share of the event's tickets; ignored when `sellOut`. */
  share: number;
  /** Sell exactly `quantity` (and never cancel any of them), so the tier ends sold out. */
  sellOut?: boolean;
  /** The part of the sales period (0 = opening, 1 = close) in which this tier sells. */
  window?: readonly [number, number];
  /** The organiser pauses sales once the orders are in. */
  pauseAfterSales?: boolean;
  /** Holders of this tier come in through their own door. */
  gate?: string;
}

const DOORS_MINUTES = 30;
const MAIN_ENTRANCE_ONLY = [['Main entrance', 1]] as const;

interface EventTemplate {
  kind: Kind;
  name: string;
  description: string;
  venue: string;
  timezone: string;
  currency: string;
  capacity: number;
  /** Days from the reference time to the start; ignored for the live event (it started today). */
  startInDays: number;
  startTime: readonly [number, number];
  durationHours: number;
  /** Doors open this long before the start; half an hour unless given. */
  doorsMinutes?: number;
  /** Sales open this many days before the start. */
  salesDays: number;
  /** Tickets to sell in completed orders (before cancellations). */
  tickets: number;
  /** Share of attendees who give a company. */
  companyShare: number;
  questions: readonly Question[];
  /** The gates with their weights (how many scans each takes); a main entrance only unless given. */
  gates?: readonly (readonly [string, number])[];
  tiers: readonly TierTemplate[];
  /** For the cancelled event: how many days before the reference time it was called off. */
  cancelledDaysAgo?: number;
}

const TEMPLATES: readonly EventTemplate[] = [
  {
    kind: 'completed',
    name: 'Thameside Developer Summit',
    description:
      'A day of talks and workshops on web platforms, developer tooling and the craft of shipping software.',
    venue: 'Riverside Hall, 12 Wharf Road, London',
    timezone: 'Europe/London',
    currency: 'GBP',
    capacity: 350,
    startInDays: -24,
    startTime: [9, 0],
    durationHours: 9,
    doorsMinutes: 60,
    salesDays: 90,
    tickets: 215,
    companyShare: 0.85,
    questions: [DIETARY, TSHIRT],
    gates: [
      ['Main entrance', 7],
      ['Side entrance', 3],
    ],
    tiers: [
      {
        name: 'Early bird',
        description: 'The full conference day at the launch price.',
        price: 14900,
        quantity: 60,
        sellOut: true,
        share: 0,
        window: [0, 0.3],
      },
      {
        name: 'Standard',
        description: 'The full conference day, lunch and the evening social.',
        price: 21900,
        quantity: 200,
        share: 0.78,
        window: [0.2, 1],
      },
      {
        name: 'Student',
        description: 'For students in full-time education; bring your student card.',
        price: 4900,
        quantity: 30,
        maxPerOrder: 1,
        share: 0.14,
      },
      {
        name: 'Speaker & crew',
        description: 'Complimentary passes issued by the organisers.',
        price: 0,
        status: 'hidden',
        share: 0.08,
        window: [0.4, 1],
        gate: 'VIP door',
      },
    ],
  },
  {
    kind: 'live',
    name: 'Spree Data Days',
    description:
      'Data engineering, analytics and applied machine learning, in two halls by the river.',
    venue: 'Halle am Kanal, Köpenicker Straße 40, Berlin',
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    capacity: 300,
    startInDays: 0,
    startTime: [9, 30],
    durationHours: 9,
    doorsMinutes: 45,
    salesDays: 70,
    tickets: 190,
    companyShare: 0.9,
    questions: [DIETARY, TSHIRT, HEARD_FROM],
    gates: [
      ['Main entrance', 6],
      ['Hall B entrance', 3],
    ],
    tiers: [
      {
        name: 'Conference pass',
        description: 'Both halls, lunch and coffee.',
        price: 27900,
        quantity: 220,
        share: 0.72,
      },
      {
        name: 'Conference + workshop',
        description: 'The conference plus one hands-on morning workshop.',
        price: 44900,
        quantity: 40,
        maxPerOrder: 2,
        share: 0.14,
      },
      {
        name: 'Patron',
        description: 'Reserved seating, the speakers’ dinner and our thanks.',
        price: 69900,
        quantity: 20,
        maxPerOrder: 2,
        share: 0.07,
        gate: 'VIP door',
      },
      {
        name: 'Diversity scholarship',
        description: 'Free places for people under-represented in tech, by application.',
        price: 0,
        quantity: 15,
        maxPerOrder: 1,
        status: 'hidden',
        share: 0.07,
        window: [0.3, 0.9],
      },
    ],
  },
  {
    kind: 'upcoming',
    name: 'Amsterdam Product Night',
    description: 'Three short talks on product discovery, then drinks on the terrace.',
    venue: 'De Werkplaats, Oostelijke Handelskade 8, Amsterdam',
    timezone: 'Europe/Amsterdam',
    currency: 'EUR',
    capacity: 180,
    startInDays: 16,
    startTime: [18, 30],
    durationHours: 4,
    salesDays: 45,
    tickets: 112,
    companyShare: 0.75,
    questions: [DIETARY, HEARD_FROM],
    tiers: [
      {
        name: 'Early bird',
        price: 2500,
        quantity: 40,
        sellOut: true,
        share: 0,
        window: [0, 0.5],
      },
      {
        name: 'Regular',
        description: 'Entry, two drinks and snacks.',
        price: 3900,
        quantity: 120,
        share: 0.85,
        window: [0.3, 1],
      },
      {
        name: 'Supporter',
        description: 'Pay a little more and fund a free place for a student.',
        price: 7500,
        quantity: 20,
        maxPerOrder: 2,
        share: 0.15,
        pauseAfterSales: true,
      },
    ],
  },
  {
    kind: 'draft',
    name: 'Lisbon Open Source Weekend',
    description:
      'Two days of maintainers, contributors and hack tables. Programme to be announced.',
    venue: 'Armazém 16, Rua Cintura do Porto, Lisbon',
    timezone: 'Europe/Lisbon',
    currency: 'EUR',
    capacity: 600,
    startInDays: 110,
    startTime: [10, 0],
    durationHours: 32,
    salesDays: 80,
    tickets: 0,
    companyShare: 0.5,
    questions: [DIETARY, TSHIRT],
    tiers: [
      { name: 'Weekend pass', price: 12000, quantity: 400, share: 0.6 },
      { name: 'Saturday only', price: 7000, quantity: 100, share: 0.2 },
      { name: 'Sunday only', price: 7000, quantity: 100, share: 0.2 },
    ],
  },
  {
    kind: 'cancelled',
    name: 'Leith Comedy Night',
    description: 'Five comedians, one compère, no heckling (much).',
    venue: 'The Shore Rooms, 3 Tower Place, Edinburgh',
    timezone: 'Europe/London',
    currency: 'GBP',
    capacity: 180,
    startInDays: 9,
    startTime: [20, 0],
    durationHours: 2.5,
    salesDays: 35,
    tickets: 46,
    companyShare: 0.1,
    questions: [ACCESSIBILITY],
    cancelledDaysAgo: 4,
    tiers: [
      { name: 'Standing', price: 1800, quantity: 120, maxPerOrder: 6, share: 0.65 },
      { name: 'Seated', price: 2800, quantity: 60, maxPerOrder: 6, share: 0.35 },
    ],
  },
  {
    kind: 'upcoming',
    name: 'Design Systems Meetup NYC',
    description: 'Case studies from teams running design systems at scale. Pizza provided.',
    venue: 'Pier 57 Loft, 25 11th Avenue, New York',
    timezone: 'America/New_York',
    currency: 'USD',
    capacity: 160,
    startInDays: 52,
    startTime: [18, 0],
    durationHours: 3.5,
    salesDays: 75,
    tickets: 52,
    companyShare: 0.8,
    questions: [DIETARY, ACCESSIBILITY],
    tiers: [
      { name: 'General admission', price: 2000, quantity: 150, share: 0.85 },
      {
        name: 'Front row + dinner',
        description: 'A reserved seat and dinner with the speakers afterwards.',
        price: 9500,
        quantity: 12,
        maxPerOrder: 2,
        share: 0.1,
      },
      { name: 'Volunteer', price: 0, quantity: 10, maxPerOrder: 1, status: 'hidden', share: 0.05 },
    ],
  },
];

/** The template for the `index`-th event: later editions move further from the reference time. */
function templateFor(index: number): EventTemplate {
  const base = itemAt(TEMPLATES, index % TEMPLATES.length, 'event template');
  const round = Math.floor(index / TEMPLATES.length);
  if (round === 0) return base;
  const shift = 35 * round;
  return {
    ...base,
    name: `${base.name} (edition ${round + 1})`,
    // Only one event is happening right now; its repeats are upcoming.
    kind: base.kind === 'live' ? 'upcoming' : base.kind,
    startInDays: base.kind === 'completed' ? base.startInDays - shift : base.startInDays + shift,
    // Sales of a later edition opened as long ago as those of the first.
    salesDays: base.kind === 'completed' ? base.salesDays : base.salesDays + shift,
  };
}

// ---------------------------------------------------------------------------
// Time

/** Milliseconds the wall clock of `timeZone` is ahead of UTC at `at`. */
function tzOffset(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

/** The instant the clocks of `timeZone` show `hour:minute` on the local day `days` after `now`. */
function localTime(
  now: Date,
  days: number,
  [hour, minute]: readonly [number, number],
  timeZone: string,
): Date {
  const day = new Date(now.getTime() + days * DAY);
  const local = new Date(day.getTime() + tzOffset(day, timeZone));
  const wall = Date.UTC(
    local.getUTCFullYear(),
    local.getUTCMonth(),
    local.getUTCDate(),
    hour,
    minute,
  );
  // Two passes settle the offset on days when daylight saving time changes.
  const first = wall - tzOffset(new Date(wall), timeZone);
  return new Date(wall - tzOffset(new Date(first), timeZone));
}

const addMs = (date: Date, ms: number): Date => new Date(date.getTime() + ms);
const earliest = (...dates: Date[]): Date => new Date(Math.min(...dates.map((d) => d.getTime())));
const startOfUtcDay = (date: Date): Date =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const isoDate = (date: Date): string => date.toISOString().slice(0, 10);

/** A moment in [from, to], with sales picking up towards the end as they do. */
function saleTime(rng: Rng, from: Date, to: Date): Date {
  const span = to.getTime() - from.getTime();
  return new Date(from.getTime() + Math.floor(span * Math.pow(rng(), 0.75)));
}

// ---------------------------------------------------------------------------
// Planning: everything random is decided up front, then written through the services.

interface PlannedOrder {
  tier: number;
  buyerName: string;
  buyerEmail: string;
  lines: (Person & { answers: AttendeeAnswer[] })[];
  status: 'completed' | 'pending';
  placedAt: Date;
  /** A later cancellation, with or without a refund. */
  cancel: { refund: boolean; at: Date } | null;
}

interface EventPlan {
  template: EventTemplate;
  startsAt: Date;
  endsAt: Date;
  doorsOpenAt: Date;
  salesStart: Date;
  cancelledAt: Date | null;
  orders: PlannedOrder[];
  rng: Rng;
}

const ORDER_SIZES = [
  [1, 52],
  [2, 28],
  [3, 12],
  [4, 8],
] as const;

function planOrder(
  rng: Rng,
  template: EventTemplate,
  tierIndex: number,
  size: number,
  placedAt: Date,
  status: 'completed' | 'pending',
): PlannedOrder {
  const company = chance(rng, template.companyShare) ? pick(rng, COMPANIES) : null;
  const lines = Array.from({ length: size }, (_, i) => {
    // Group bookings are mostly colleagues; now and then a friend tags along.
    const person = makePerson(rng, i === 0 || chance(rng, 0.8) ? company : null);
    // Guests booked by someone else often leave their address out.
    const email = i > 0 && chance(rng, 0.2) ? null : person.email;
    return { ...person, email, answers: answer(rng, template.questions) };
  });
  const first = itemAt(lines, 0, 'order line');
  // Sometimes an office manager books for the team without attending.
  const buyer = size > 1 && chance(rng, 0.15) ? makePerson(rng, company) : first;
  return {
    tier: tierIndex,
    buyerName: `${buyer.firstName} ${buyer.lastName}`,
    buyerEmail: buyer.email ?? personalEmail(rng, buyer.firstName, buyer.lastName),
    lines,
    status,
    placedAt,
    cancel: null,
  };
}

/** How many tickets each tier sells: sell-outs exactly, the rest by share within their quantity. */
function ticketsPerTier(template: EventTemplate): number[] {
  const fixed = template.tiers.reduce((sum, t) => sum + (t.sellOut ? (t.quantity ?? 0) : 0), 0);
  const shares = template.tiers.reduce((sum, t) => sum + (t.sellOut ? 0 : t.share), 0);
  const rest = Math.max(0, template.tickets - fixed);
  return template.tiers.map((tier) => {
    if (tier.sellOut) return tier.quantity ?? 0;
    const wanted = shares > 0 ? Math.round((rest * tier.share) / shares) : 0;
    // Stay below the quantity so that only the planned tiers read as sold out.
    return tier.quantity == null ? wanted : Math.min(wanted, tier.quantity - 1);
  });
}

function planEvent(index: number, now: Date): EventPlan {
  const template = templateFor(index);
  const rng = seededRng(0x5eed + index * 7919);
  const startsAt =
    template.kind === 'live'
      ? // Started a couple of hours ago, on a quarter hour.
        new Date(Math.floor(now.getTime() / (15 * MINUTE)) * 15 * MINUTE - 150 * MINUTE)
      : localTime(now, template.startInDays, template.startTime, template.timezone);
  const endsAt = addMs(startsAt, template.durationHours * HOUR);
  const doorsOpenAt = addMs(startsAt, -(template.doorsMinutes ?? DOORS_MINUTES) * MINUTE);
  const salesStart = startOfUtcDay(addMs(startsAt, -template.salesDays * DAY));
  const cancelledAt =
    template.kind === 'cancelled' ? addMs(now, -(template.cancelledDaysAgo ?? 3) * DAY) : null;
  const plan: EventPlan = {
    template,
    startsAt,
    endsAt,
    doorsOpenAt,
    salesStart,
    cancelledAt,
    orders: [],
    rng,
  };
  if (template.kind === 'draft') return plan;

  // Sales run until the doors open, the event is called off, or now, whichever comes first.
  const salesEnd = earliest(addMs(now, -5 * MINUTE), cancelledAt ?? now, startsAt);
  if (salesEnd <= salesStart) return plan;
  const span = salesEnd.getTime() - salesStart.getTime();
  const at = (fraction: number) => new Date(salesStart.getTime() + Math.floor(span * fraction));

  const perTier = ticketsPerTier(template);
  perTier.forEach((count, tierIndex) => {
    const tier = itemAt(template.tiers, tierIndex, 'tier template');
    const [from, to] = tier.window ?? [0, 1];
    let left = count;
    while (left > 0) {
      const size = Math.min(weighted(rng, ORDER_SIZES), tier.maxPerOrder ?? 10, left);
      left -= size;
      const placedAt = saleTime(rng, at(from), at(to));
      plan.orders.push(planOrder(rng, template, tierIndex, size, placedAt, 'completed'));
    }
  });

  const completed = plan.orders.length;
  const openTiers = template.tiers
    .map((tier, i) => ({ tier, i }))
    .filter(({ tier }) => !tier.sellOut && tier.status !== 'hidden' && !tier.pauseAfterSales)
    .map(({ i }) => i);
  if (openTiers.length > 0) {
    // Checkouts that were never paid expire after an hour or so.
    const abandoned = Math.max(2, Math.round(completed * 0.04));
    for (let i = 0; i < abandoned; i++) {
      const placedAt = saleTime(rng, salesStart, salesEnd);
      const order = planOrder(
        rng,
        template,
        pick(rng, openTiers),
        intBetween(rng, 1, 2),
        placedAt,
        'pending',
      );
      const expiresAt = addMs(placedAt, intBetween(rng, 30, 90) * MINUTE);
      if (expiresAt < salesEnd) order.cancel = { refund: false, at: expiresAt };
      plan.orders.push(order);
    }
    // A few checkouts are waiting for payment right now.
    if (template.kind === 'live' || template.kind === 'upcoming') {
      for (let i = 0; i < 3; i++) {
        const placedAt = addMs(now, -intBetween(rng, 10, 20 * 60) * MINUTE);
        plan.orders.push(
          planOrder(
            rng,
            template,
            pick(rng, openTiers),
            intBetween(rng, 1, 3),
            placedAt,
            'pending',
          ),
        );
      }
    }
  }

  if (cancelledAt) {
    // Calling an event off refunds every paid order and drops unpaid checkouts.
    plan.orders.forEach((order, i) => {
      if (order.cancel) return;
      order.cancel = { refund: order.status === 'completed', at: addMs(cancelledAt, i * 1000) };
    });
  } else {
    const lastChange = earliest(addMs(now, -10 * MINUTE), startsAt);
    for (const order of plan.orders.slice(0, completed)) {
      // A sold-out tier stays sold out: nothing of it is handed back.
      if (itemAt(template.tiers, order.tier, 'tier template').sellOut) continue;
      const roll = rng();
      if (roll >= 0.065) continue;
      const at = addMs(order.placedAt, intBetween(rng, 1, 12 * 24) * HOUR);
      if (at < lastChange) order.cancel = { refund: roll < 0.05, at };
    }
  }

  plan.orders.sort((a, b) => a.placedAt.getTime() - b.placedAt.getTime());
  return plan;
}

// ---------------------------------------------------------------------------
// Writing

interface LedgerEntry {
  at: Date;
  gross: number;
  fees: number;
  refunds: number;
}

/** What the card processor keeps of a payment: 1.4 % + 20 minor units. */
const processingFee = (total: number): number => (total > 0 ? Math.round(total * 0.014) + 20 : 0);

async function seedEvent(
  root: EntityManager,
  tenant: Omit<TenantContext, 'em'>,
  plan: EventPlan,
  scannerKeyId: string | null,
  now: Date,
): Promise<SeedCounts> {
  const { template } = plan;
  const ctx = (): TenantContext => ({ ...tenant, em: root.fork() });
  const counts: SeedCounts = {
    events: 1,
    tiers: 0,
    orders: 0,
    tickets: 0,
    attendees: 0,
    checkins: 0,
    payouts: 0,
  };

  const setup = ctx();
  const event = await createEvent(setup, {
    name: template.name,
    description: template.description,
    venue: template.venue,
    timezone: template.timezone,
    starts_at: plan.startsAt.toISOString(),
    ends_at: plan.endsAt.toISOString(),
    doors_open_at: plan.doorsOpenAt.toISOString(),
    currency: template.currency,
    capacity: template.capacity,
    status: 'draft',
  });
  const salesSpan = plan.startsAt.getTime() - plan.salesStart.getTime();
  const tiers = [];
  for (const [i, tier] of template.tiers.entries()) {
    const window = tier.window ?? [0, 1];
    tiers.push(
      await createTier(setup, {
        event_id: event.id,
        name: tier.name,
        description: tier.description ?? null,
        price: tier.price,
        quantity_total: tier.quantity ?? null,
        max_per_order: tier.maxPerOrder ?? null,
        sales_start_at: plan.salesStart.toISOString(),
        // A tier that sells only early (an early bird) closes on a date.
        sales_end_at:
          window[1] < 1
            ? new Date(plan.salesStart.getTime() + Math.floor(salesSpan * window[1])).toISOString()
            : null,
        sort_order: (i + 1) * 10,
        status: tier.status ?? 'on_sale',
      }),
    );
  }
  counts.tiers = tiers.length;
  if (template.kind === 'draft') return counts;

  await updateEvent(ctx(), event.id, { status: 'published' });

  const ledger: LedgerEntry[] = [];
  const placed: { id: string; cancel: NonNullable<PlannedOrder['cancel']> }[] = [];
  for (const planned of plan.orders) {
    const tier = itemAt(tiers, planned.tier, 'tier');
    const attendees = planned.lines.map(({ answers, ...person }) => ({ ...person, answers }));
    // Paid orders are issued as every sale is, under the tier's sales rules at their time; a
    // checkout still waiting for payment holds no tickets.
    const order =
      planned.status === 'completed'
        ? (
            await issueOrder(ctx(), {
              eventId: event.id,
              tierId: tier.id,
              quantity: attendees.length,
              buyerName: planned.buyerName,
              buyerEmail: planned.buyerEmail,
              attendees,
              at: planned.placedAt,
            })
          ).order
        : await placeOrder(ctx(), {
            eventId: event.id,
            buyerName: planned.buyerName,
            buyerEmail: planned.buyerEmail,
            lines: attendees.map((attendee) => ({ tierId: tier.id, attendee })),
            feePerTicket: bookingFee(tier.price),
            status: 'pending',
            placedAt: planned.placedAt,
          });
    counts.orders += 1;
    if (planned.status === 'completed') {
      counts.tickets += planned.lines.length;
      counts.attendees += planned.lines.length;
      ledger.push({
        at: planned.placedAt,
        gross: order.total,
        fees: order.fees + processingFee(order.total),
        refunds: 0,
      });
    }
    if (planned.cancel) placed.push({ id: order.id, cancel: planned.cancel });
  }

  placed.sort((a, b) => a.cancel.at.getTime() - b.cancel.at.getTime());
  for (const { id, cancel } of placed) {
    const order = await cancelOrder(ctx(), id, cancel);
    if (order.refundedAmount > 0) {
      ledger.push({ at: cancel.at, gross: 0, fees: 0, refunds: order.refundedAmount });
    }
  }

  for (const [i, tier] of template.tiers.entries()) {
    if (tier.pauseAfterSales) {
      await updateTier(ctx(), itemAt(tiers, i, 'tier').id, { status: 'paused' });
    }
  }

  if (scannerKeyId && (template.kind === 'completed' || template.kind === 'live')) {
    counts.checkins = await scanTickets(
      ctx,
      plan,
      event.id,
      tiers.map((t) => t.id),
      scannerKeyId,
      now,
    );
  }

  if (template.kind === 'completed' || template.kind === 'cancelled') {
    await updateEvent(ctx(), event.id, { status: template.kind });
  }

  for (const payout of planPayouts(plan, ledger, now)) {
    await recordPayout(ctx(), { ...payout, eventId: event.id, currency: template.currency });
    counts.payouts += 1;
  }
  return counts;
}

interface Scan {
  ticketId: string;
  direction: CheckinDirection;
  gate: string;
  at: Date;
}

const DEVICES: Record<string, readonly string[]> = {
  'Main entrance': ['scanner-01', 'scanner-02', 'scanner-03'],
  'Side entrance': ['scanner-04'],
  'Hall B entrance': ['scanner-04', 'scanner-05'],
  'VIP door': ['scanner-06'],
};

/** Door scans for the event that happened and the one happening now, in the order they occurred. */
async function scanTickets(
  ctx: () => TenantContext,
  plan: EventPlan,
  eventId: string,
  tierIds: string[],
  apiKeyId: string,
  now: Date,
): Promise<number> {
  const { template, rng } = plan;
  const live = template.kind === 'live';
  const { data: tickets } = await ticketList.page(ctx(), {
    event_id: eventId,
    page: 1,
    limit: 100_000,
    count: false,
  });
  // Doors stay busy for the first couple of hours; at the live event, until now.
  const rushEnd = live ? addMs(now, -2 * MINUTE) : addMs(plan.startsAt, 2 * HOUR);
  const dayEnd = live ? addMs(now, -MINUTE) : plan.endsAt;
  const scans: Scan[] = [];
  for (const ticket of tickets) {
    if (ticket.status === 'void') continue;
    if (!chance(rng, live ? 0.62 : 0.9)) continue;
    const tierTemplate = template.tiers[tierIds.indexOf(ticket.tierId)];
    const gate = tierTemplate?.gate ?? weighted(rng, template.gates ?? MAIN_ENTRANCE_ONLY);
    const entry = saleTime(rng, plan.doorsOpenAt, rushEnd);
    scans.push({ ticketId: ticket.id, direction: 'entry', gate, at: entry });
    // Some step out (lunch, a call) and most of those come back.
    if (!chance(rng, 0.12)) continue;
    const exit = addMs(entry, intBetween(rng, 20, 180) * MINUTE);
    if (exit >= dayEnd) continue;
    scans.push({ ticketId: ticket.id, direction: 'exit', gate, at: exit });
    const back = addMs(exit, intBetween(rng, 5, 60) * MINUTE);
    if (back < dayEnd && chance(rng, 0.6)) {
      scans.push({ ticketId: ticket.id, direction: 'entry', gate, at: back });
    }
  }
  scans.sort((a, b) => a.at.getTime() - b.at.getTime());
  for (const scan of scans) {
    await recordCheckin(
      { ...ctx(), apiKeyId },
      {
        ticket_id: scan.ticketId,
        event_id: eventId,
        direction: scan.direction,
        gate: scan.gate,
        device_id: pick(rng, DEVICES[scan.gate] ?? ['scanner-01']),
        scanned_at: scan.at.toISOString(),
      },
    );
  }
  return scans.length;
}

/** A payout as `recordPayout` takes it, less its event and currency, which the run adds. */
type PlannedPayout = Omit<PayoutInput, 'eventId' | 'currency'>;

/**
 * Weekly payouts of what each week's sales left after fees and refunds. A week that nets nothing
 * (or less) rolls into the next, as a payment balance does. The newest payouts are still on their
 * way; at the completed event one bank transfer bounced and was sent again; the cancelled event's
 * last payout was stopped to cover its refunds.
 */
function planPayouts(plan: EventPlan, ledger: LedgerEntry[], now: Date): PlannedPayout[] {
  if (ledger.length === 0) return [];
  const periodEnd = startOfUtcDay(now);
  const first = Math.min(...ledger.map((entry) => entry.at.getTime()));
  const weeks = Math.ceil((periodEnd.getTime() - first) / (7 * DAY));
  const payouts: PlannedPayout[] = [];
  let from = addMs(periodEnd, -weeks * 7 * DAY);
  for (let week = weeks - 1; week >= 0; week--) {
    const to = addMs(periodEnd, -week * 7 * DAY);
    const entries = ledger.filter((entry) => entry.at >= from && entry.at < to);
    const gross = entries.reduce((sum, entry) => sum + entry.gross, 0);
    const fees = entries.reduce((sum, entry) => sum + entry.fees, 0);
    const refunds = entries.reduce((sum, entry) => sum + entry.refunds, 0);
    if (gross - fees - refunds <= 0) continue;
    payouts.push({
      grossAmount: gross,
      feesAmount: fees,
      refundsAmount: refunds,
      status: 'paid',
      periodStart: from,
      periodEnd: to,
      arrivalDate: null,
      paidAt: null,
      failureReason: null,
      createdAt: earliest(addMs(to, HOUR), now),
    });
    from = to;
  }

  const kind = plan.template.kind;
  const last = payouts.length - 1;
  const result: PlannedPayout[] = [];
  payouts.forEach((payout, i) => {
    const arrival = addMs(payout.periodEnd, 3 * DAY);
    let status: PayoutStatus = 'paid';
    if (kind === 'cancelled' && i === last) status = 'cancelled';
    else if ((kind === 'live' || kind === 'upcoming') && i === last) status = 'pending';
    else if ((kind === 'live' || kind === 'upcoming') && i === last - 1) status = 'in_transit';
    else if (kind === 'completed' && i === Math.min(1, last)) status = 'failed';

    if (status === 'pending' || status === 'cancelled') {
      result.push({ ...payout, status });
    } else if (status === 'in_transit') {
      result.push({
        ...payout,
        status,
        arrivalDate: isoDate(arrival > now ? arrival : addMs(now, DAY)),
      });
    } else if (status === 'failed') {
      result.push({
        ...payout,
        status,
        failureReason: 'The bank account has been closed (account_closed).',
      });
      // Sent again to the corrected account a few days later.
      const retried = earliest(addMs(payout.createdAt, 4 * DAY), now);
      const retryArrival = earliest(addMs(retried, 2 * DAY), now);
      result.push({
        ...payout,
        status: 'paid',
        createdAt: retried,
        arrivalDate: isoDate(retryArrival),
        paidAt: retryArrival,
      });
    } else {
      const paidAt = earliest(arrival, now);
      result.push({ ...payout, status, arrivalDate: isoDate(paidAt), paidAt });
    }
  });
  return result;
}

/**
 * Fills an organisation with realistic sample data through the services, so every invariant holds
 * (tier sales counts, sold-out tiers, void tickets of cancelled orders, attendee check-in state):
 * a completed event with its door scans, one happening now, upcoming ones, a draft and a cancelled
 * one, with orders in every state and payouts in every status. The shape is the same on every
 * run; ids, codes and references are fresh. `now` is the reference time (default: the clock).
 */
export async function seedDemoData(
  em: EntityManager,
  organisationId: string,
  options: { events?: number; now?: Date },
): Promise<SeedCounts> {
  const now = options.now ?? new Date();
  const total = options.events ?? DEFAULT_DEMO_EVENTS;
  if (!Number.isInteger(total) || total < 0 || total > MAX_DEMO_EVENTS) {
    throw badRequest(`events must be an integer between 0 and ${MAX_DEMO_EVENTS}`);
  }
  const plans = Array.from({ length: total }, (_, i) => planEvent(i, now));
  const { livemode } = await environmentOf(em.fork(), organisationId);

  // Door scans are made with an API key, as the scanners at the door would; nobody holds its
  // secret, so it is revoked once the scans are in.
  const scans = plans.some((plan) => ['completed', 'live'].includes(plan.template.kind));
  const scanner = scans
    ? await generateKey(em.fork(), {
        organisationId,
        name: 'Door scanners (demo data)',
        scopes: ['checkins:write'],
      })
    : null;

  const counts: SeedCounts = {
    events: 0,
    tiers: 0,
    orders: 0,
    tickets: 0,
    attendees: 0,
    checkins: 0,
    payouts: 0,
  };
  // Events are independent, so a few are written side by side, each through its own forks; the
  // limit keeps a small connection pool from queueing past its timeout.
  const queue = [...plans];
  const failures: unknown[] = [];
  const worker = async () => {
    for (let plan = queue.shift(); plan && failures.length === 0; plan = queue.shift()) {
      try {
        const seeded = await seedEvent(
          em,
          { organisationId, livemode },
          plan,
          scanner?.apiKey.id ?? null,
          now,
        );
        for (const key of Object.keys(counts) as (keyof SeedCounts)[]) counts[key] += seeded[key];
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEED_CONCURRENCY, plans.length) }, worker));
  if (scanner) await revokeKey(em.fork(), scanner.apiKey.id, organisationId);
  if (failures.length > 0) throw failures[0];
  return counts;
}
