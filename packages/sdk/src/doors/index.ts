// `@boxoffice/sdk/doors`: an offline-first door session on top of the client. Nothing here runs
// until `openDoor` is called, and nothing of it is in the main entry.
export {
  Door,
  MAX_DOOR_BATCH,
  openDoor,
  type DoorConflict,
  type DoorErrorEvent,
  type DoorEvents,
  type DoorFlush,
  type DoorLoad,
  type DoorOfflineEvent,
  type DoorOptions,
  type DoorRefresh,
  type ScanOptions,
  type ScanOutcome,
  type ScanResult,
} from './door';
export type { Listener } from './emitter';
export type {
  DoorAdmission,
  DoorAttendee,
  DoorCheckpoints,
  DoorSnapshot,
  DoorTicket,
} from './state';
export { memoryStore, type DoorJournalEntry, type DoorScan, type DoorStore } from './store';
