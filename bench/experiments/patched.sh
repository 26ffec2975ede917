# Sourced by an experiment's run.sh with BASE (a commit) and PATCH (a file)
# set: checks the repository out at BASE in a temporary worktree, applies
# PATCH and builds ocmem there. Sets here, repo, eval (the first argument,
# default ../shared/eval beside the repository) and tmp (holding src/, the
# worktree, and ocmem, the binary); both go when the script exits.
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
eval=${1:-$repo/../shared/eval}
tmp=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$tmp/src" 2>/dev/null; rm -rf "$tmp"' EXIT
git -C "$repo" worktree add -q --detach "$tmp/src" "$BASE"
git -C "$tmp/src" apply "$here/$PATCH"
(cd "$tmp/src" && go build -o "$tmp/ocmem" ./cmd/ocmem)
