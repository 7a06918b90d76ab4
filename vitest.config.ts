import { defineConfig } from 'vitest/config';

// A zone far from UTC (+14:00) for the test processes, so server-local time cannot pass for UTC or a user's zone.
process.env.TZ = 'Pacific/Kiritimati';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Kysely's migrator imports migration files at run time; inlining lets Vite load the .ts ones.
    server: { deps: { inline: ['kysely'] } },
  },
});
