#!/bin/sh
# Runs a command and checks how it ends: expect_exit.sh STATUS PATTERN COMMAND [ARG...]
# passes when the command exits with STATUS (not by a signal) and its stderr matches the
# extended regular expression PATTERN. A CTest helper for the CLI's bad-input tests.
expected="$1"
pattern="$2"
shift 2
err=$("$@" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne "$expected" ]; then
  echo "expected exit status $expected, got $status from: $*" >&2
  echo "stderr: $err" >&2
  exit 1
fi
if ! printf '%s\n' "$err" | grep -Eq -- "$pattern"; then
  echo "stderr does not match '$pattern': $err" >&2
  exit 1
fi
echo "ok: exit $status, stderr: $err"
