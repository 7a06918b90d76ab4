import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT, readProjectFile } from './project-docs.js';

/** Where the project's own text lives: code, comments, templates, docs. */
const SCANNED = ['src', 'test', 'views', 'docs', 'migrations', 'scripts', 'README.md', '.env.example'];
const TEXT_FILE = /\.(ts|js|mjs|cjs|eta|md|css|sh|json|html|sql|txt)$|^\.env\.example$/;

/** Every text file of the project in the folders above, as paths from the project root. */
export function scannedFiles(): string[] {
  return SCANNED.flatMap((path) => filesUnder(path)).sort();
}

function filesUnder(path: string): string[] {
  if (!statSync(join(PROJECT_ROOT, path)).isDirectory()) return TEXT_FILE.test(path) ? [path] : [];
  return readdirSync(join(PROJECT_ROOT, path)).flatMap((name) => filesUnder(`${path}/${name}`));
}

/** A numbered section cited in a text: `§4.6`, `section 2.3`, `sections 4.5, 4.6`. */
export interface SectionReference {
  /** The section's number, `4.6`. */
  section: string;
  /** The RFC it belongs to (`RFC 6749 §4.1.2`), or undefined for the service's interface document. */
  rfc: string | undefined;
  /** The words around it, to find it by. */
  context: string;
}

const NUMBER = String.raw`\d+(?:\.\d+)*`;
const CITED = String.raw`(?:§\s?|\b[Ss]ections?\s+)`;
/** How a citation goes on to further sections: `§2.2 to §2.4`, `sections 4.5, 4.6`, `RFC 6749 §5.1 and §6`. */
const FURTHER = String.raw`(?:,\s*(?:and\s+)?|\s+(?:and|or|to)\s+)(?:§\s?)?`;
/**
 * A citation: sections, one or a list, of the interface document unless an RFC's number comes
 * right before the first one (`RFC 6749 §4.1.2 and §4.1.2.1`: both the RFC's).
 */
const CITATION = new RegExp(String.raw`(RFC\s+(\d+)\s+)?${CITED}(${NUMBER}(?:${FURTHER}${NUMBER})*)`, 'g');

/**
 * A text as one line, comment marks at the start of its lines dropped, so that an RFC's number at
 * the end of one line of a comment stays beside the section that starts the next.
 */
function asOneLine(text: string): string {
  return text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#(?!#))?\s*/g, ' ');
}

/** Every numbered section a text cites, the RFCs' included. */
export function sectionReferences(text: string): SectionReference[] {
  const line = asOneLine(text);
  return [...line.matchAll(CITATION)].flatMap((match) => {
    const context = line.slice(Math.max(0, match.index - 40), match.index + match[0].length + 20);
    return [...match[3]!.matchAll(new RegExp(NUMBER, 'g'))].map((number) => ({
      section: number[0],
      rfc: match[2] === undefined ? undefined : `RFC ${match[2]}`,
      context,
    }));
  });
}

/** The sections of the interface document that docs/service-interface.md summarises: its headings' numbers. */
export function summarisedSections(): Set<string> {
  const headings = readProjectFile('docs/service-interface.md').match(/^#{2,6} §\d+(?:\.\d+)*/gm) ?? [];
  return new Set(headings.map((heading) => heading.replace(/^#+ §/, '')));
}
