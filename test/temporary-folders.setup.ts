import { afterAll } from 'vitest';
import { removeTemporaryFolders } from './helpers/temporary-folders.js';

// Runs after the test file's own afterAll hooks have stopped the processes that used the folders.
afterAll(async () => {
  await removeTemporaryFolders();
});
