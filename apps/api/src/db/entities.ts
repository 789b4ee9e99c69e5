import { User } from '../modules/accounts/user.entity';
import { UserSession } from '../modules/accounts/user-session.entity';
import { ApiKey } from '../modules/api-keys/api-key.entity';
import { Attendee } from '../modules/attendees/attendee.entity';
import { Checkin } from '../modules/checkins/checkin.entity';
import { Event } from '../modules/events/event.entity';
import { Order } from '../modules/orders/order.entity';
import { Organisation } from '../modules/organisations/organisation.entity';
import { PlanChange } from '../modules/organisations/plan-change.entity';
import { Payout } from '../modules/payouts/payout.entity';
import { Ticket } from '../modules/tickets/ticket.entity';
import { Tier } from '../modules/tiers/tier.entity';

export const entities = [
  Organisation,
  PlanChange,
  ApiKey,
  User,
  UserSession,
  Event,
  Tier,
  Order,
  Ticket,
  Attendee,
  Checkin,
  Payout,
];
