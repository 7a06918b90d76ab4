import { randomUUID } from 'node:crypto';
import type { Settings } from '../../src/sandbox/settings.js';
import { fileContentOf } from '../helpers/file-content.js';
import { fitFileWithSession } from '../helpers/fit-files.js';
import { connectedUser } from '../helpers/flows.js';
import type { Stack } from '../helpers/stack.js';

/** The sandbox settings these tests change, as they are by default. */
export const LISTING_AS_DEFAULT: Partial<Settings> = {
  workoutsListing: 'list',
  withdrawnScopes: [],
  withheldScopes: [],
  faultRate: 0,
  tokenDelayMs: 0,
};

/** The answer of GET /api/workouts, as the tests read it. */
export interface WorkoutsListing {
  workouts: Array<Record<string, unknown>>;
  notes: string[];
  stale: boolean;
  staleReason?: string;
  fetchedAt: string;
}

/** A connected user who is an athlete of their own at the sandbox, so no other test's workouts show up. */
export async function connectedAthlete(stack: Stack) {
  await stack.changeSandbox({ autoApprove: `athlete-${randomUUID()}` });
  return connectedUser(stack);
}

/** Uploads the 90-minute, 45 km ride starting 2026-03-01T06:30Z to the user's account at the sandbox. */
export async function uploadRide(stack: Stack, userId: number, name = 'Long ride'): Promise<void> {
  await stack.serviceApi().postMultipart(userId, '/api/workouts/upload-fit', [
    ['file', { fileName: 'ride.fit', content: fileContentOf(fitFileWithSession()) }],
    ['name', name],
    ['metadata', '{}'],
  ]);
}

/** How often the sandbox answered GET /api/workouts, by status. */
export async function listingRequests(stack: Stack): Promise<Record<string, number>> {
  return (await stack.sandboxState()).counters.requests['GET /api/workouts'] ?? {};
}
