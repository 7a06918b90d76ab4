import { DateTime } from 'luxon';
import { CookieClient } from '../cookie-client.js';
import { expectStatus, expectSuccess, runConcurrently, timeConcurrently, type RateMeasurement, type Timing } from './measure.js';
import type { BenchUser } from './users.js';

export interface MealPost {
  user: BenchUser;
  date: string;
  body: Record<string, unknown>;
}

/** The calendar date `daysAgo` days before today (UTC). */
export function dateDaysAgo(daysAgo: number): string {
  return DateTime.utc().minus({ days: daysAgo }).toISODate();
}

/** `items` meal items for each user on each date, as the JSON of POST /api/meals; local times without an offset. */
export function mealPosts(users: BenchUser[], dates: string[], items: number): MealPost[] {
  const posts: MealPost[] = [];
  // Item by item across every (user, day), so that each day's items arrive spread over the run.
  for (let item = 0; item < items; item++) {
    for (const date of dates) {
      for (const user of users) posts.push({ user, date, body: mealBody(date, item) });
    }
  }
  return posts;
}

function mealBody(date: string, item: number): Record<string, unknown> {
  const hour = String(6 + (item % 16)).padStart(2, '0');
  const minute = String((item * 7) % 60).padStart(2, '0');
  return {
    name: `Bench item ${item + 1}`,
    carbs: 20 + item,
    protein: 10,
    fat: 5,
    kcal: 200 + item,
    logged_at: `${date}T${hour}:${minute}:00`,
  };
}

export async function postMeals(posts: MealPost[], concurrency: number, onPosted: (post: MealPost) => void = () => {}): Promise<Timing> {
  return timeConcurrently(posts, concurrency, async (post) => {
    expectStatus(await post.user.client.postJson('/api/meals', post.body), 201, 'POST /api/meals');
    onPosted(post);
  });
}

/** The app's cheapest route at the same concurrency, from the same kind of client: the floor of ingest. */
export function healthzFloor(appUrl: string, requests: number, concurrency: number): Promise<Timing> {
  const client = new CookieClient(appUrl);
  return timeConcurrently(Array.from({ length: requests }), concurrency, async () => {
    expectStatus(await client.request('/healthz'), 200, 'GET /healthz');
  });
}

export type BatchOutcome = { available: true; rate: RateMeasurement } | { available: false };

export const MEALS_BATCH_MAX = 500;

/**
 * The bulk import, POST /api/meals/batch, `{ items: [...] }` of up to MEALS_BATCH_MAX items
 * per request. An empty import stores nothing: 404 means this build has no such route yet.
 */
export async function postBatches(posts: MealPost[], concurrency: number): Promise<BatchOutcome> {
  const batches = batchesOf(posts);
  const [first] = batches;
  if (first === undefined) return { available: false };
  const probe = await first.user.client.postJson('/api/meals/batch', { items: [] });
  if (probe.status === 404) return { available: false };
  const rate = await runConcurrently(
    batches,
    concurrency,
    async ({ user, posts: batch }) => {
      expectSuccess(await user.client.postJson('/api/meals/batch', { items: batch.map((post) => post.body) }), 'POST /api/meals/batch');
    },
    (batch) => batch.posts.length,
  );
  return { available: true, rate };
}

function batchesOf(posts: MealPost[]): { user: BenchUser; posts: MealPost[] }[] {
  const byUser = new Map<BenchUser, MealPost[]>();
  for (const post of posts) byUser.set(post.user, [...(byUser.get(post.user) ?? []), post]);
  return [...byUser].flatMap(([user, userPosts]) =>
    Array.from({ length: Math.ceil(userPosts.length / MEALS_BATCH_MAX) }, (_, index) => ({
      user,
      posts: userPosts.slice(index * MEALS_BATCH_MAX, (index + 1) * MEALS_BATCH_MAX),
    })),
  );
}
