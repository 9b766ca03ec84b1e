# Shared by the scripts of this folder (sourced, not run): where things
# are, and the steps they share. See ../yaegi/README.md, "The patch series".

set -euo pipefail

PATCHES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COPY=$(cd "$PATCHES/../yaegi" && pwd)
UPSTREAM=$PATCHES/upstream.txt

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

# The upstream module and the version the copy is made from.
upstream_module() { awk '$1 == "module" { print $2 }' "$UPSTREAM"; }
upstream_version() { awk '$1 == "module" { print $3 }' "$UPSTREAM"; }

# kept_paths lists the upstream files the copy keeps; local_paths the
# copy's own files, which are neither upstream's nor the series'.
kept_paths() { awk '$1 == "keep" { print $3 }' "$UPSTREAM"; }
local_paths() { awk '$1 == "local" { print $2 }' "$UPSTREAM"; }

# series_files prints the patch files, in order.
series_files() {
	local p
	grep -v '^[[:space:]]*\(#\|$\)' "$PATCHES/series" | while read -r p; do
		[ -f "$PATCHES/$p" ] || die "series names $p, which is not in $PATCHES"
		echo "$PATCHES/$p"
	done
}

# patch_paths FILE prints the paths a patch touches.
patch_paths() { sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$1"; }

# added_paths prints the paths of the files the series adds.
added_paths() {
	local p
	series_files | while read -r p; do
		awk '/^diff --git / { path = substr($3, 3) } /^new file mode/ { print path }' "$p"
	done
}

# module_dir VERSION prints the directory of the upstream module at
# VERSION in the module cache, which go mod download fills if need be.
module_dir() {
	local dir
	dir=$(cd "${TMPDIR:-/tmp}" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$(upstream_module)@$1" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$dir" ] || die "go mod download $(upstream_module)@$1 gave no directory"
	echo "$dir"
}

# copy_paths SRC DST copies the files of SRC whose paths (relative to it)
# it reads on stdin to DST, writable.
copy_paths() {
	local src=$1 dst=$2 p
	while read -r p; do
		[ -f "$src/$p" ] || die "$src has no $p"
		mkdir -p "$dst/$(dirname "$p")"
		cp "$src/$p" "$dst/$p"
		chmod u+w "$dst/$p"
	done
}

# copy_tree DST copies the copy to DST without its own files: what the
# series applied to the kept upstream files gives.
copy_tree() {
	(cd "$COPY" && find . -type f | sed 's|^\./||' | sort) |
		grep -vxF -f <(local_paths) | copy_paths "$COPY" "$1"
}

# apply DIR ARGS... applies a patch (the last argument) in DIR with git
# apply, which takes paths relative to the work tree it runs in: DIR is
# made one if it is not.
apply() {
	local dir=$1
	shift
	[ -e "$dir/.git" ] || git -C "$dir" init -q
	git -C "$dir" apply --whitespace=nowarn "$@"
}

# tree_diff A B prints the diff from directory A to directory B in the
# form of the patch files, with the same options whatever the user's git
# configuration says.
tree_diff() {
	local tmp ta tb
	tmp=$(mktemp -d)
	git init -q "$tmp/repo"
	ta=$(write_tree "$tmp" "$1")
	tb=$(write_tree "$tmp" "$2")
	git --git-dir="$tmp/repo/.git" -c core.quotepath=off -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		diff --no-color --no-ext-diff --no-textconv --no-renames --diff-algorithm=myers --full-index "$ta" "$tb"
	rm -rf "$tmp"
}

# write_tree TMP DIR stores the files of DIR (.git aside) as a tree in the
# repository TMP/repo and prints its id.
write_tree() {
	local index
	index=$(mktemp -p "$1")
	rm "$index"
	GIT_INDEX_FILE=$index git --git-dir="$1/repo/.git" --work-tree="$2" -c core.excludesFile=/dev/null add -A -f .
	GIT_INDEX_FILE=$index git --git-dir="$1/repo/.git" write-tree
}

# same_tree A B fails, naming the files that differ, when directories A
# and B differ (.git aside).
same_tree() {
	local d
	d=$(tree_diff "$1" "$2" | sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p')
	if [ -n "$d" ]; then
		echo "$1 and $2 differ in:" >&2
		echo "$d" >&2
		return 1
	fi
}

# patch_header FILE prints what precedes the first diff of a patch: its
# message.
patch_header() { sed '/^diff --git /,$d' "$1"; }

# write_upstream VERSION DIR writes upstream.txt again for VERSION, with
# the sha256 of the kept files as DIR holds them.
write_upstream() {
	local p
	{
		grep '^#' "$UPSTREAM"
		echo "module $(upstream_module) $1"
		grep '^local ' "$UPSTREAM"
		kept_paths | sort | while read -r p; do
			echo "keep $(sha256sum <"$2/$p" | cut -d' ' -f1) $p"
		done
	} >"$UPSTREAM.new"
	mv "$UPSTREAM.new" "$UPSTREAM"
}
