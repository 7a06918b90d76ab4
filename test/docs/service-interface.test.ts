import { describe, expect, it } from 'vitest';
import { scannedFiles, sectionReferences, summarisedSections } from '../helpers/interface-references.js';
import { readProjectFile } from '../helpers/project-docs.js';

/** A reference as a reader names it: `document §4.6`, `RFC 6749 §6`. */
function named(text: string): string[] {
  return sectionReferences(text).map((reference) => `${reference.rfc ?? 'document'} §${reference.section}`);
}

describe('references to the interface document', () => {
  it('each lead to a heading of docs/service-interface.md, in every file of the project', () => {
    const summarised = summarisedSections();
    const references = scannedFiles().flatMap((path) =>
      sectionReferences(readProjectFile(path))
        .filter((reference) => reference.rfc === undefined)
        .map((reference) => ({ path, ...reference })),
    );
    const unresolved = references.filter((reference) => !summarised.has(reference.section));
    expect(unresolved.map(({ path, section, context }) => `${path}: §${section} in "${context}"`)).toEqual([]);
    // The project cites the document throughout: finding few references means the search broke.
    expect(references.length).toBeGreaterThan(100);
  });

  it('docs/service-interface.md has a heading for each section of the document', () => {
    expect([...summarisedSections()].sort()).toEqual(
      ['1', '2', '2.1', '2.2', '2.3', '2.4', '3', '4', '4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '4.7', '5', '6', '7', '8', '9'].sort(),
    );
  });

  it('are told from an RFC section by the RFC number right before them', () => {
    expect(named('The callback (section 4.1; RFC 6749 §4.1.2 and §4.1.2.1).')).toEqual([
      'document §4.1',
      'RFC 6749 §4.1.2',
      'RFC 6749 §4.1.2.1',
    ]);
    expect(named('A missing scope (§7, RFC 6750 §3.1): a 403.')).toEqual(['document §7', 'RFC 6750 §3.1']);
    expect(named('neither revocation (§5) nor deletes (§4.4, §4.5, §4.6)')).toEqual([
      'document §5',
      'document §4.4',
      'document §4.5',
      'document §4.6',
    ]);
    expect(named('POST /api/wellness (sections 4.5, 4.6); rotation (sections 5 and 9)')).toEqual([
      'document §4.5',
      'document §4.6',
      'document §5',
      'document §9',
    ]);
    expect(named('a field it does not show (§2.2 to §2.4); offsets (§4.7 rule 2)')).toEqual([
      'document §2.2',
      'document §2.4',
      'document §4.7',
    ]);
  });

  it('keep an RFC number with its section across the lines of a comment', () => {
    const comment = `/**
     * The service refused a call for lack of \`scope\` (RFC 6750
     * §3.1): the grant is taken to lack it (section 2.1).
     */`;
    expect(named(comment)).toEqual(['RFC 6750 §3.1', 'document §2.1']);
  });
});
