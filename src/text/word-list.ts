/** "a", "a and b", "a, b and c"; undefined for none. */
export function wordList(words: readonly string[]): string | undefined {
  if (words.length === 0) return undefined;
  return words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
