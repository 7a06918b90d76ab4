// Keeps the dashboard's sync overview current while anything waits to be sent: polls
// GET /api/sync/overview and updates each entry in place; stops once nothing waits. An entry that
// appeared since the page was loaded shows at the next visit.
const POLL_MS = 3000;
const overview = document.getElementById('sync-overview');

function showEntry(entry) {
  const item = overview.querySelector(`[data-sync-entry="${CSS.escape(entry.id)}"]`);
  if (!item) return;
  item.dataset.syncState = entry.state;
  const headline = item.querySelector('.sync-headline');
  headline.dataset.syncState = entry.state;
  headline.textContent = entry.headline;
  const details = item.querySelector('.sync-details');
  details.hidden = entry.details.length === 0;
  details
    .querySelector('ul')
    .replaceChildren(...entry.details.map((line) => Object.assign(document.createElement('li'), { textContent: line })));
}

function showOverview(data) {
  overview.dataset.pending = String(data.pending);
  overview.querySelector('[data-testid="sync-counts"]').textContent = data.counts;
  const history = overview.querySelector('[data-testid="sync-history"]');
  history.hidden = data.history === undefined;
  history.textContent = data.history ?? '';
  const lastProblem = overview.querySelector('[data-testid="sync-last-problem"]');
  lastProblem.hidden = data.lastProblem === undefined;
  lastProblem.textContent = data.lastProblem ?? '';
  for (const kind of data.kinds) kind.entries.forEach(showEntry);
}

async function poll() {
  const response = await fetch('/api/sync/overview', { headers: { accept: 'application/json' } }).catch(() => undefined);
  // Signed out meanwhile: nothing more to show. A lost or failed answer is tried again at the next tick.
  if (response?.status === 401 || response?.status === 403) return;
  if (response?.ok) showOverview(await response.json());
  if (overview.dataset.pending === 'true') setTimeout(poll, POLL_MS);
}

if (overview?.dataset.pending === 'true') setTimeout(poll, POLL_MS);
