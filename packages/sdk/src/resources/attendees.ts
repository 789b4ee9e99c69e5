import { Resource } from './shared';
import type { Attendee, AttendeeListParams } from './types';

export type { Attendee, AttendeeListParams };

/** Attendees; `checked_in` filters by presence. */
export class Attendees extends Resource<Attendee, AttendeeListParams> {}
