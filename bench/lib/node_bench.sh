# Shared by the benchmarks that drive `quiver serve` from a node script (source it, then call
# run_node_bench). Prints the machine line, then runs
#   node SCRIPT <absolute quiver binary> <scratch dir> [args...]
# with the table on stdout and progress on stderr; the scratch dir is removed on exit.
#   run_node_bench SCRIPT "NOTE" [quiver binary=build/quiver] [args...]
# NOTE (may be empty) is appended to the machine line (e.g. what the peer is).
run_node_bench() {
  local script=$1 note=$2
  shift 2
  local quiver=${1:-build/quiver}
  shift || true
  # The server is spawned from node; give it an absolute path.
  quiver=$(realpath "$quiver")
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(df -T "$work" | awk 'NR==2 {print $2}'), Linux $(uname -r), node $(node --version); $(date -u +%Y-%m-%d)${note:+; $note}"
  node "$script" "$quiver" "$work" "$@"
}
