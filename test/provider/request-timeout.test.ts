import { describe, expect, it } from 'vitest';
import { requestTimeoutMs } from '../../src/provider/request-timeout.js';

const defaults = { baseS: 15, minBytesPerS: 256 * 1024 };

describe('the time a request to the service may take', () => {
  it('is ATHLETE_TIMEOUT_S for a request without a body', () => {
    expect(requestTimeoutMs(0, defaults)).toBe(15_000);
  });

  it('adds the body’s time at the slowest rate accepted: a 24 MiB file at 256 KiB/s gets 96 s more', () => {
    expect(requestTimeoutMs(24 * 1024 * 1024, defaults)).toBe(111_000);
  });

  it('grows with the body: twice the bytes, twice the time beyond the base', () => {
    const beyondBase = (bytes: number) => requestTimeoutMs(bytes, defaults) - requestTimeoutMs(0, defaults);
    expect(beyondBase(1024 * 1024)).toBe(4000);
    expect(beyondBase(2 * 1024 * 1024)).toBe(8000);
  });

  it('gives a few kilobytes of JSON a few milliseconds', () => {
    expect(requestTimeoutMs(2048, defaults)).toBe(15_008);
  });
});
