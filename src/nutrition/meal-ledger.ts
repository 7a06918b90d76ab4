import { z } from 'zod';
import { answerOf, finish, jsonRequest, unacknowledged, WriteCounts } from '../kinds/workload-requests.js';
import type { AppClient, ChaosLedger, PickNumber } from '../kinds/workload.js';

/** An item as the app shows it and as chaos last had it acknowledged: what a day's content holds. */
export interface LedgerItem {
  id: number;
  date: string;
  name: string;
  carbs: number;
}

/** Adds stop short of the app's per-day limit, so that a day stays open to them. */
const ITEMS_PER_DAY = 8;

const addedSchema = z.looseObject({ id: z.int(), date: z.string() });
const contentSchema = z.array(z.object({ id: z.int(), name: z.string(), carbs: z.number() }));

/**
 * One person's meal items in a chaos run: random adds, edits and deletes of items, and what the
 * acknowledged ones say the app must hold, item by item.
 */
export class MealLedger extends WriteCounts implements ChaosLedger {
  private readonly items = new Map<number, LedgerItem>();
  private readonly deleted = new Set<number>();
  private readonly uncertainItems = new Set<number>();
  private readonly uncertainDays = new Set<string>();
  private adds = 0;

  constructor(private readonly person: string) {
    super();
  }

  async writeOnce(client: AppClient, dates: readonly string[], pick: PickNumber): Promise<number | undefined> {
    const items = [...this.items.values()];
    const sort = pick(0, 3);
    const date = dates[pick(0, dates.length - 1)]!;
    const dayFull = items.filter((item) => item.date === date).length >= ITEMS_PER_DAY;
    if (items.length === 0 || (sort < 2 && !dayFull)) return this.add(client, date, pick);
    const item = items[pick(0, items.length - 1)]!;
    return sort === 3 ? this.remove(client, item) : this.edit(client, item, pick);
  }

  /**
   * Where the app's items (all days) disagree with the acknowledged writes: an acknowledged item
   * missing or with other values, a deleted one back, or an item no write made.
   */
  disagreements(appDays: Map<string, unknown>): string[] {
    const appItems = [...appDays].flatMap(([date, content]) => contentSchema.parse(content).map((item) => ({ ...item, date })));
    const inApp = new Map(appItems.map((item) => [item.id, item]));
    const problems: string[] = [];
    for (const item of this.items.values()) {
      if (this.uncertainItems.has(item.id)) continue;
      const found = inApp.get(item.id);
      if (found === undefined) problems.push(`item ${item.id} (${item.date}) acknowledged but missing`);
      else if (found.name !== item.name || found.carbs !== item.carbs || found.date !== item.date) {
        problems.push(`item ${item.id} (${item.date}) holds ${found.name}/${found.carbs}, acknowledged ${item.name}/${item.carbs}`);
      }
    }
    for (const id of this.deleted) if (inApp.has(id)) problems.push(`item ${id} deleted (acknowledged) but back`);
    for (const item of appItems) {
      const known = this.items.has(item.id) || this.uncertainItems.has(item.id);
      if (!known && !this.uncertainDays.has(item.date)) problems.push(`item ${item.id} (${item.date}) made by no write`);
    }
    return problems;
  }

  private async add(client: AppClient, date: string, pick: PickNumber): Promise<number | undefined> {
    const name = `Chaos ${this.person}-${(this.adds += 1)}`;
    const carbs = pick(1, 200);
    const minute = pick(0, 16 * 60 - 1);
    const loggedAt = `${date}T${String(6 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00`;
    const response = await answerOf(client.request('/api/meals', jsonRequest('POST', { name, carbs, logged_at: loggedAt })));
    if (response?.status === 201) {
      const { id, date: stored } = addedSchema.parse(await response.json());
      this.acknowledged.add += 1;
      this.items.set(id, { id, date: stored, name, carbs });
    } else if (unacknowledged(response)) {
      this.countUnacknowledged(response);
      this.uncertainDays.add(date);
    }
    return finish(response);
  }

  private async edit(client: AppClient, item: LedgerItem, pick: PickNumber): Promise<number | undefined> {
    const changed = { ...item, name: `${item.name.split(' v')[0]} v${pick(2, 999)}`, carbs: pick(1, 200) };
    const response = await answerOf(
      client.request(`/api/meals/${item.id}`, jsonRequest('PATCH', { name: changed.name, carbs: changed.carbs })),
    );
    if (response?.status === 200) {
      this.acknowledged.edit += 1;
      this.items.set(item.id, changed);
      this.uncertainItems.delete(item.id);
    } else this.settleRefusal(item.id, response);
    return finish(response);
  }

  private async remove(client: AppClient, item: LedgerItem): Promise<number | undefined> {
    const response = await answerOf(client.request(`/api/meals/${item.id}`, { method: 'DELETE' }));
    if (response?.status === 204) {
      this.acknowledged.delete += 1;
      this.forget(item.id);
      this.deleted.add(item.id);
    } else this.settleRefusal(item.id, response);
    return finish(response);
  }

  /** A 404 says the item is not there: an unacknowledged delete was applied after all. */
  private settleRefusal(id: number, response: Response | undefined): void {
    if (response?.status === 404) this.forget(id);
    else if (unacknowledged(response)) {
      this.countUnacknowledged(response);
      this.uncertainItems.add(id);
    }
  }

  private forget(id: number): void {
    this.items.delete(id);
    this.uncertainItems.delete(id);
  }
}
