/** What the door-night simulation and its door processes say to each other over IPC. */

export type ParentMessage =
  | { type: 'scan'; id: number; code: string }
  | { type: 'status' }
  | { type: 'drain' }
  | { type: 'close' };

export type DoorMessage =
  | { type: 'ready'; downloaded: boolean; tickets: number; pending: number }
  | { type: 'scanned'; id: number; result: string; ms: number }
  | { type: 'status'; pending: number }
  | { type: 'drained' }
  | {
      type: 'conflict';
      code: string;
      status: number;
      errorCode: string | undefined;
      admittedAtGate: string | null;
    }
  | { type: 'failed'; reason: string };
