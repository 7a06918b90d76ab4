import { z } from 'zod';

/**
 * The form every module declares its settings in (`<module>.settings.ts`): each setting once, with
 * how its value is parsed, what it is when unset and what it means. config.ts parses the
 * environment through these declarations, and `npm run settings` prints the configuration table
 * from them, so no list of settings is kept anywhere else.
 */

/** The processes that read a group of settings: the web processes, the workers, or both. */
export type ReadBy = 'web' | 'worker' | 'both';

/** One setting: its value's parser, what it is when unset, and its meaning for people. */
export interface Setting<Schema extends z.ZodType = z.ZodType> {
  /** Parses the value as the environment gives it (a string), saying what it must be when wrong. */
  schema: Schema;
  /** The value a process takes when it is unset, written as in the environment. */
  default?: string;
  /** What the configuration table says of it unset: "(required)", "`10`", "(off)"... */
  whenUnset: string;
  /** The table's Meaning cell: one line of Markdown, its links relative to docs/. */
  meaning: string;
}

interface Described<Schema extends z.ZodType> {
  schema: Schema;
  meaning: string;
}

/** Unset, it is `default`, parsed like a value that is set; `gloss` says that value in words: "25 MiB". */
export function setting<Schema extends z.ZodType>(declaration: Described<Schema> & { default: string; gloss?: string }): Setting<Schema>;
/** Unset, it is undefined: the app goes without it, or works it out from others, as `unset` says. */
export function setting<Schema extends z.ZodType>(declaration: Described<Schema> & { unset: string }): Setting<z.ZodOptional<Schema>>;
/** Required: a process that reads it stops at start, naming it, when it is unset. */
export function setting<Schema extends z.ZodType>(declaration: Described<Schema>): Setting<Schema>;
export function setting(declaration: Described<z.ZodType> & { default?: string; gloss?: string; unset?: string }): Setting<z.ZodType> {
  const { schema, meaning } = declaration;
  if (declaration.default !== undefined) {
    const value = declaration.default === '' ? 'empty' : `\`${declaration.default}\``;
    const whenUnset = declaration.gloss === undefined ? value : `${value} (${declaration.gloss})`;
    return { schema, default: declaration.default, whenUnset, meaning };
  }
  if (declaration.unset !== undefined) return { schema: schema.optional(), whenUnset: declaration.unset, meaning };
  return { schema, whenUnset: '(required)', meaning };
}

export type SettingShape = Record<string, Setting>;

/** The parsed values of some settings, by name. */
export type SettingValues<Shape extends SettingShape> = { [Name in keyof Shape]: z.output<Shape[Name]['schema']> };

/** What is wrong with settings of a group taken together: a Redis named twice, a mail server with no sender. */
export class SettingProblem {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {}
}

/**
 * Settings read together, by the same processes, into one part of a process's configuration
 * (`read`'s result, merged into the object config.ts gives the process). `uses` names settings of
 * other groups that `read` needs too; a process that reads this group reads those.
 */
export interface SettingGroup<
  Shape extends SettingShape = SettingShape,
  Uses extends SettingShape = SettingShape,
  Part extends object = object,
> {
  readBy: ReadBy;
  settings: Shape;
  uses?: Uses;
  read(values: SettingValues<Shape & Uses>): Part | SettingProblem;
}

/** Declares a group, keeping its types: which processes read it, and the part it gives them. */
export function settingGroup<
  const By extends ReadBy,
  Shape extends SettingShape,
  Part extends object,
  Uses extends SettingShape = Record<never, Setting>,
>(group: SettingGroup<Shape, Uses, Part> & { readBy: By }): SettingGroup<Shape, Uses, Part> & { readBy: By } {
  return group;
}

/** A group's part of the configuration. */
export type PartOf<Group> = Group extends SettingGroup<SettingShape, SettingShape, infer Part> ? Exclude<Part, SettingProblem> : never;

/** A union's members as one intersection: A | B becomes A & B. */
type Intersection<Union> = (Union extends unknown ? (member: Union) => void : never) extends (member: infer All) => void ? All : never;

/** The configuration a process takes from the groups it reads: every group's part, merged into one object. */
export type ConfigOf<Group extends SettingGroup> = Intersection<PartOf<Group>>;

/** The groups one process reads: its own, and those read by both. */
export function groupsReadBy<Group extends SettingGroup, Process extends 'web' | 'worker'>(
  groups: readonly Group[],
  process: Process,
): Extract<Group, { readBy: Process | 'both' }>[] {
  return groups.filter((group): group is Extract<Group, { readBy: Process | 'both' }> => [process, 'both'].includes(group.readBy));
}

/**
 * The parts of the kinds' groups of settings, each read by the kind that declares the group with
 * the group itself, so that the shared configuration never names a kind's settings.
 */
export class KindSettings {
  constructor(private readonly parts: ReadonlyMap<SettingGroup, object>) {}

  /** The group's part, typed as its `read` gives it. */
  of<Group extends SettingGroup>(group: Group): PartOf<Group> {
    const part = this.parts.get(group);
    if (part === undefined) throw new Error('A kind read a group of settings that its process was not given');
    // Each group's part is what its own read gave, so it is that read's type.
    return part as PartOf<Group>;
  }
}
