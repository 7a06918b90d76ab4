import { RateLimiterRedis } from 'rate-limiter-flexible';
import { takePoint as take, type RetryAfter } from '../budget/rate-limit.js';
import type { RedisConnection } from '../redis/redis-target.js';

export type { RetryAfter };

export interface AttemptLimitSettings {
  signInFailuresPerAddressPerHour: number;
  signUpsPerAddressPerHour: number;
  sessionsPerAddressPerHour: number;
  verificationMailsPerAccountPerHour: number;
  passwordResetsPerEmailPerHour: number;
  passwordResetsPerAddressPerHour: number;
  connectAttemptsPerAccountPerHour: number;
}

export interface AttemptLimitsDependencies {
  redis: RedisConnection;
  /** Keys go under `<prefix>:attempts:`. */
  redisPrefix: string;
  settings: AttemptLimitSettings;
}

export interface AttemptLimits {
  /**
   * Counts a sign-in attempt as a failure before its password is checked, so that guesses sent
   * at once cannot all slip in before the first failure is recorded; `signInSucceeded` forgives it.
   */
  startSignIn(email: string, address: string): Promise<RetryAfter | undefined>;
  signInSucceeded(email: string, address: string): Promise<void>;
  startSignUp(address: string): Promise<RetryAfter | undefined>;
  /** Counts a session about to be started (a sign-in or sign-up that succeeds): each is kept in Redis until it ends. */
  startSession(address: string): Promise<RetryAfter | undefined>;
  /** Counts a link to confirm an address mailed to the person (the sign-up's, a resend, a change of address). */
  startVerificationMail(userId: number): Promise<RetryAfter | undefined>;
  /**
   * Counts a password reset asked for this email from this client address, whether or not an
   * account has it: the answer is the same either way (password-reset.ts).
   */
  startPasswordReset(email: string, address: string): Promise<RetryAfter | undefined>;
  /**
   * Counts a Connect the account starts, whatever becomes of it: each may end in a request to the
   * service's token endpoint, whose unknown limits every person's Connects and refreshes share.
   */
  startConnect(userId: number): Promise<RetryAfter | undefined>;
  /** Forgets every sign-in failure, mail and Connect counted against the account, from any address (its deletion). */
  forgetAccount(email: string, userId: number): Promise<void>;
}

/**
 * An account may fail this often in this window from one address (OWASP: a handful of consecutive
 * failures), then that address waits for the window to end; a success starts the count again.
 * Counted on the account alone, the limit would let anyone lock a person out by typing their email
 * with wrong passwords; counted per account and address, a guesser locks out only themselves.
 */
const FAILURES_PER_ACCOUNT_AND_ADDRESS = 5;
const ACCOUNT_WINDOW_S = 15 * 60;
const HOUR_S = 3600;

/**
 * Limits on sign-in failures, sign-ups and new sessions, counted in Redis so that every web process
 * shares them. Guessing across many accounts is slowed by each address's hourly failure budget;
 * sign-ups, which each cost a hash and a row, by an hourly budget per address too; and sessions,
 * each kept in Redis (which must not fill: it holds the queues too) until it ends, by a third. All
 * are settings, as an address may be a NAT shared by many people. Connects are counted per account:
 * each may cost a token request of the service's, which every person shares, and a signed-in
 * client looping Connect with made-up codes would otherwise spend them without end.
 */
export function createAttemptLimits({ redis, redisPrefix, settings }: AttemptLimitsDependencies): AttemptLimits {
  const limiter = (name: string, points: number, durationS: number) =>
    new RateLimiterRedis({ storeClient: redis, keyPrefix: `${redisPrefix}:attempts:${name}`, points, duration: durationS });
  const signInFailuresByAccountAndAddress = limiter('sign-in-account', FAILURES_PER_ACCOUNT_AND_ADDRESS, ACCOUNT_WINDOW_S);
  const signInFailuresByAddress = limiter('sign-in-address', settings.signInFailuresPerAddressPerHour, HOUR_S);
  const signUpsByAddress = limiter('sign-up-address', settings.signUpsPerAddressPerHour, HOUR_S);
  const sessionsByAddress = limiter('session-address', settings.sessionsPerAddressPerHour, HOUR_S);
  const verificationMailsByAccount = limiter('verification-mail-account', settings.verificationMailsPerAccountPerHour, HOUR_S);
  const passwordResetsByEmail = limiter('password-reset-email', settings.passwordResetsPerEmailPerHour, HOUR_S);
  const passwordResetsByAddress = limiter('password-reset-address', settings.passwordResetsPerAddressPerHour, HOUR_S);
  const connectsByAccount = limiter('connect-account', settings.connectAttemptsPerAccountPerHour, HOUR_S);
  const accountAtAddress = (email: string, address: string) => `${address}/${email}`;
  // The addresses an account's failures were counted from, so that forgetAccount finds them without
  // scanning Redis; it lives as long as the counts it leads to.
  const addressesOf = (email: string) => `${redisPrefix}:attempts:sign-in-addresses:${email}`;

  async function noteAddress(email: string, address: string): Promise<void> {
    await redis.multi().sadd(addressesOf(email), address).expire(addressesOf(email), ACCOUNT_WINDOW_S).exec();
  }

  async function takeSignIn(email: string, address: string): Promise<RetryAfter | undefined> {
    return (
      (await take(signInFailuresByAddress, address)) ?? (await take(signInFailuresByAccountAndAddress, accountAtAddress(email, address)))
    );
  }

  return {
    async startSignIn(email, address) {
      const [wait] = await Promise.all([takeSignIn(email, address), noteAddress(email, address)]);
      return wait;
    },
    async signInSucceeded(email, address) {
      await signInFailuresByAccountAndAddress.delete(accountAtAddress(email, address));
      await signInFailuresByAddress.reward(address);
    },
    startSignUp: (address) => take(signUpsByAddress, address),
    startSession: (address) => take(sessionsByAddress, address),
    startVerificationMail: (userId) => take(verificationMailsByAccount, String(userId)),
    // The client's count first: a client past its own limit spends nothing of the address's.
    startPasswordReset: async (email, address) =>
      (await take(passwordResetsByAddress, address)) ?? (await take(passwordResetsByEmail, email)),
    startConnect: (userId) => take(connectsByAccount, String(userId)),
    async forgetAccount(email, userId) {
      const addresses = await redis.smembers(addressesOf(email));
      await Promise.all(addresses.map((address) => signInFailuresByAccountAndAddress.delete(accountAtAddress(email, address))));
      await Promise.all([
        verificationMailsByAccount.delete(String(userId)),
        passwordResetsByEmail.delete(email),
        connectsByAccount.delete(String(userId)),
      ]);
      await redis.del(addressesOf(email));
    },
  };
}
