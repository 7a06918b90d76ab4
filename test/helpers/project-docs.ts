import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The project's documentation: README.md and every file in docs/, as paths from the project root. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(PROJECT_ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.sort().map((name) => `docs/${name}`)];
}

export function readProjectFile(path: string): string {
  return readFileSync(join(PROJECT_ROOT, path), 'utf8');
}

/** A `## ` section of a Markdown file, from its heading to the next `## ` heading or the end. */
export function markdownSection(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The lines of a Markdown file outside fenced code blocks, with inline code taken out. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, '')];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of text.split('\n').filter((candidate) => /^#{1,6} /.test(candidate))) {
    const base = line
      .replace(/^#+ /, '')
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let repeat = 1; anchors.has(anchor); repeat += 1) anchor = `${base}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

export interface RelativeLink {
  /** The file the link is in, from the project root. */
  from: string;
  target: string;
}

/** Every link of a documentation file that points inside the project (not to another site). */
export function relativeLinks(path: string): RelativeLink[] {
  return prose(readProjectFile(path)).flatMap((line) =>
    [...line.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ from: path, target })),
  );
}

/** Why a link does not lead anywhere, or undefined when it does: its file exists, and its anchor is a heading there. */
export function brokenLinkReason({ from, target }: RelativeLink): string | undefined {
  const [file = '', anchor] = target.split('#');
  const path = file === '' ? from : relative(PROJECT_ROOT, join(PROJECT_ROOT, dirname(from), file));
  if (path.startsWith('..') || !existsSync(join(PROJECT_ROOT, path))) return `${path} does not exist`;
  if (anchor === undefined) return undefined;
  if (!path.endsWith('.md')) return `${path} is not Markdown, so it has no #${anchor}`;
  return headingAnchors(readProjectFile(path)).has(anchor) ? undefined : `${path} has no heading #${anchor}`;
}
