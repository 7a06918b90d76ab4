import type { NutritionItem } from '../provider/records.js';
import type { MealLimits } from './meal.schemas.js';

/**
 * One optional amount of a meal item beyond its carbs (protein, fat, calories), declared once
 * (meal.fields.ts): the input schemas, the stored column, the table's type, the page's field and
 * words and the record sent all follow from it. An amount is a decimal number from 0 up.
 */
export interface AmountDeclaration {
  /** Its column in meal_items, added by a migration (a test fails for a declared column the migrated schema lacks). */
  column: string;
  /** The label of its field on the page: "Protein (g)". */
  label: string;
  /** How a sentence on the page names it: "Protein". */
  words: string;
  /** Its unit in words and as a symbol, and an example value, for the messages of a value refused. */
  unit: string;
  symbol: string;
  example: string;
  /** The most it may be: a number, or the configured limit of its kind (MEAL_MAX_GRAMS, MEAL_MAX_KCAL). */
  max: number | keyof Pick<MealLimits, 'maxGrams' | 'maxKcal'>;
  /**
   * `record`: a field of its own in each item sent, for one the interface document shows of an item
   * (§2.4, NutritionItem); any other is a compile error. `rawJson`: sent only inside rawJson.
   */
  sent: 'record' | 'rawJson';
}

export type AmountDeclarations = Record<string, AmountDeclaration>;

/** A declaration the interface document refuses; the compiler's message quotes `why`. */
interface Refused<Why extends string> {
  refused: Why;
}

/** What the interface document allows of an amount sent as its own field: a number field §2.4 shows of an item. */
export type DocumentedItemFields<Declarations> = {
  [Name in keyof Declarations]: Declarations[Name] extends { sent: 'record' }
    ? Name extends keyof NutritionItem
      ? NutritionItem[Name] extends number | undefined
        ? unknown
        : Refused<'section 2.4 shows this field of an item, but not as a number'>
      : Refused<'section 2.4 does not show this field of an item: declare it sent: "rawJson"'>
    : unknown;
};

/** The declarations as given, checked against the interface document at compile time. */
export function declareAmounts<const Declarations extends AmountDeclarations>(
  declarations: Declarations & DocumentedItemFields<Declarations>,
): Declarations {
  return declarations;
}

/** The names of the declared amounts, in the order declared. */
export function amountNames<Declarations extends AmountDeclarations>(declarations: Declarations): Array<keyof Declarations & string> {
  return Object.keys(declarations);
}
