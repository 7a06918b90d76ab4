import { describe, expect, it } from 'vitest';
import { numberFromForm } from '../../src/fields/form-numbers.js';

describe('numberFromForm', () => {
  it.each([
    ['12.5', 12.5],
    [' 60 ', 60],
    ['-5', -5],
    ['12,5', 12.5],
    ['0,25', 0.25],
    ['3,1415', 3.1415],
  ])('reads %j as the number %d', (typed, number) => {
    expect(numberFromForm(typed)).toBe(number);
  });

  it.each(['1,500', '1.000,5', '12,', ',5', '0x10', '1e3', 'Infinity', 'lots'])(
    'leaves %j as text, for the schema to refuse: a comma before three digits may group thousands',
    (typed) => {
      expect(numberFromForm(typed)).toBe(typed);
    },
  );
});
