import type { KindWorkload } from '../../kinds/workload.js';
import { CookieClient } from '../cookie-client.js';
import { expectStatus, expectSuccess, runConcurrently, timeConcurrently, type RateMeasurement, type Timing } from './measure.js';
import type { BenchUser } from './users.js';

/** Write `n` of the workload to the user's `date`. */
export interface DayPost {
  user: BenchUser;
  date: string;
  n: number;
}

/** `writes` writes for each user on each date. */
export function dayPosts(users: BenchUser[], dates: string[], writes: number): DayPost[] {
  const posts: DayPost[] = [];
  // Write by write across every (user, day), so that each day's writes arrive spread over the run.
  for (let n = 0; n < writes; n++) {
    for (const date of dates) {
      for (const user of users) posts.push({ user, date, n });
    }
  }
  return posts;
}

/** Each post as one single write of the workload, at `concurrency`; `onPosted` once each is acknowledged. */
export async function postWrites(
  workload: KindWorkload,
  posts: DayPost[],
  concurrency: number,
  onPosted: (post: DayPost) => void = () => {},
): Promise<Timing> {
  return timeConcurrently(posts, concurrency, async (post) => {
    expectSuccess(await workload.write.send(post.user.client, post.date, post.n), workload.write.route);
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

export type BulkOutcome = { available: true; rate: RateMeasurement } | { available: false };

/** The posts through the workload's bulk import, up to its most per request; not available for a kind without one. */
export async function postImports(workload: KindWorkload, posts: DayPost[], concurrency: number): Promise<BulkOutcome> {
  const { bulk } = workload;
  if (bulk === undefined) return { available: false };
  const rate = await runConcurrently(
    importsOf(posts, bulk.max),
    concurrency,
    async ({ user, posts: writes }) => expectSuccess(await bulk.send(user.client, writes), bulk.route),
    (batch) => batch.posts.length,
  );
  return { available: true, rate };
}

/** Each user's posts in imports of at most `max`. */
export function importsOf(posts: DayPost[], max: number): { user: BenchUser; posts: DayPost[] }[] {
  const byUser = new Map<BenchUser, DayPost[]>();
  for (const post of posts) byUser.set(post.user, [...(byUser.get(post.user) ?? []), post]);
  return [...byUser].flatMap(([user, userPosts]) =>
    Array.from({ length: Math.ceil(userPosts.length / max) }, (_, index) => ({
      user,
      posts: userPosts.slice(index * max, (index + 1) * max),
    })),
  );
}
