#!/bin/sh
# Runs a compiled entry point, dist/src/<name>.js, with the memory settings of every long-running
# process of the app: `sh scripts/run.sh server` (the web), `sh scripts/run.sh worker`, each
# optionally followed by Node options. npm start, npm run worker and the bench run them through
# here; so should a production host (docs/performance.md, Memory).
# `exec`: the script becomes that Node process (same pid, signals reach it directly).
set -eu

# glibc raises its mmap threshold to the largest block freed (up to 32 MiB). After the first
# Argon2 hash (9 MiB, src/accounts/password.ts) every later hash is carved from a thread's malloc
# arena, which keeps it: a hash's memory for each of libuv's 4 threads (80 MB more for the web
# process after a few sign-ins, measured with the 19 MiB hashes of before). Held at glibc's
# default (128 KiB), each hash's memory goes back to the system when the hash is done. Other C
# libraries (macOS) ignore it.
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"

# V8's young generation may grow to 2 x 16 MiB and its old generation to a limit set for a
# machine's worth of memory, long before a full GC; the app's live heap is about 40 MB. A 2 MiB
# semi-space and a heap that grows by half its live size keep the peak near it (both measured in
# docs/performance.md, Memory; 1 MiB took another 4 MB off the web's peak but cost it a fifth more
# CPU per request). Neither is a ceiling; a .fit check's thread has limits of its own
# (src/activities/fit-file-checker.ts).
# --liftoff-only: Node's fetch (openid-client's token exchanges and refreshes; the service's data
# calls use node:http) parses HTTP with llhttp, a WebAssembly module compiled at the first request.
# V8's optimising compiler took 30 MB for a moment to compile it (the web's peak in the bench, at
# its first OAuth callback) and kept about 5 MB more of code than the baseline compiler, which is
# all this flag leaves. The parser's speed does not show: the bench's rates, and 3,000 local
# fetches, were the same.
# All three are V8's flags, which a Node upgrade may rename or drop, and Node refuses to start with
# one it does not know: test/scripts/run.test.ts starts Node through this script.
# Any further arguments are Node's own options (the bench's --cpu-prof).
entry_point="$(dirname "$0")/../dist/src/${1:-}.js"
if [ $# -eq 0 ] || [ ! -f "$entry_point" ]; then
  echo "scripts/run.sh: no compiled entry point dist/src/${1:-<name>}.js (usage: sh scripts/run.sh server|worker [Node options]; npm run build first)" >&2
  exit 64
fi
shift
exec node --max-semi-space-size=2 --heap-growing-percent=50 --liftoff-only "$@" "$entry_point"
