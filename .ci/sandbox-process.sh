# Sourced by .ci/snapshot and .ci/image: waiting for a sandbox started in
# the background.

# await_listening OUT PID: waits (at most 30 s) until the sandbox PID has
# written "listening on URL" to the file OUT, and prints URL; fails if the
# process ends first.
await_listening() {
  local out=$1 pid=$2 i url
  for ((i = 0; i < 300; i++)); do
    url=$(sed -n 's/^listening on //p' "$out")
    if [ -n "$url" ]; then
      echo "$url"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "the sandbox ended before listening" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "the sandbox did not listen within 30 s" >&2
  return 1
}

# stop_sandbox PID: SIGTERM, then fails unless the sandbox exits 0 within
# 10 s (a graceful shutdown).
stop_sandbox() {
  local pid=$1 i
  kill -TERM "$pid"
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    wait "$pid" || true
    echo "the sandbox did not stop within 10 s of SIGTERM" >&2
    return 1
  fi
  wait "$pid"
}
