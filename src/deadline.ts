export const TIMED_OUT = Symbol('timed out');

/** What `work` gives, or TIMED_OUT when `deadline` (epoch ms) comes first. */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), TIMED_OUT);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
