/** An item as the app shows it and as the workload last had it acknowledged. */
export interface Item {
  id: number;
  date: string;
  name: string;
  carbs: number;
}

export type WriteKind = 'add' | 'edit' | 'delete';

/**
 * What one user's acknowledged writes (2xx) say the app must now hold. Writes that got no
 * acknowledgement (5xx, no answer) may or may not have been applied: the items and days they touched
 * are uncertain, and only what is certain is checked.
 */
export class Ledger {
  readonly items = new Map<number, Item>();
  readonly deleted = new Set<number>();
  readonly acknowledged: Record<WriteKind, number> = { add: 0, edit: 0, delete: 0 };
  /** Writes without acknowledgement, by what came back: a status code, or `no answer`. */
  readonly unacknowledged: Record<string, number> = {};
  private readonly uncertainItems = new Set<number>();
  private readonly uncertainDays = new Set<string>();

  added(item: Item): void {
    this.acknowledged.add += 1;
    this.items.set(item.id, item);
  }

  edited(item: Item): void {
    this.acknowledged.edit += 1;
    this.items.set(item.id, item);
    this.uncertainItems.delete(item.id);
  }

  removed(id: number): void {
    this.acknowledged.delete += 1;
    this.items.delete(id);
    this.uncertainItems.delete(id);
    this.deleted.add(id);
  }

  /** The app says the item is not there (404): an unacknowledged delete was applied after all. */
  gone(id: number): void {
    this.items.delete(id);
    this.uncertainItems.delete(id);
  }

  unacknowledgedAdd(date: string, answer: string): void {
    this.unacknowledged[answer] = (this.unacknowledged[answer] ?? 0) + 1;
    this.uncertainDays.add(date);
  }

  unacknowledgedChange(id: number, answer: string): void {
    this.unacknowledged[answer] = (this.unacknowledged[answer] ?? 0) + 1;
    this.uncertainItems.add(id);
  }

  /**
   * Where the app's items for the user (all days) disagree with the acknowledged writes: an
   * acknowledged item missing or with other values, a deleted one back, or an item no write made.
   */
  disagreements(appItems: Item[]): string[] {
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
}
