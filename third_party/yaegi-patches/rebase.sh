#!/usr/bin/env bash
# rebase.sh [-o DIR] [-from K] [-full] [-install] SOURCE
#
# Applies the series to an upstream yaegi source tree and runs its tests
# there. SOURCE is a version (v0.16.1: the module from the Go proxy, which
# go mod download puts in the module cache) or a directory holding a tree
# (a git checkout, an unpacked module).
#
# DIR (default: a new temporary directory, kept) becomes a git repository
# with one commit for SOURCE and one per patch. interp/op.go is left out
# of the patches and generated (go generate ./interp) in the commit of a
# patch that changes its generator, as upstream does. A patch that does
# not apply is tried again with a three-way merge, against the files it
# was made for (the upstream version of upstream.txt with the patches
# before it); if that leaves conflicts, the script stops: resolve them in
# DIR, commit, and go on with -o DIR -from K+1.
#
# The tests: each program the series puts in _test (upstream's form) under
# upstream's TestFile and TestInterpConsistencyBuild (which compares with
# go build), and the rlm tests (TestRLM*). With -full, upstream's whole
# interp suite (-short) runs on SOURCE and on the result, and the tests
# that fail only on the result are reported.
#
# When SOURCE is the version the copy is made from, the result is compared
# with the copy: they must be the same, but for the copy's own files and
# the upstream files it drops (upstream.txt). With -install (SOURCE a
# version), the result becomes the copy instead: its kept files and the
# files the series adds replace the copy's, upstream.txt names SOURCE, and
# each patch is written again from DIR's commits.
source "$(dirname "$0")/lib.sh"

dir="" from=1 full="" install=""
while [ $# -gt 1 ]; do
	case $1 in
	-o) dir=$2; shift 2 ;;
	-from) from=$2; shift 2 ;;
	-full) full=1; shift ;;
	-install) install=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || die "usage: rebase.sh [-o DIR] [-from K] [-full] [-install] VERSION|DIRECTORY"
source=$1
version=""
if [ ! -d "$source" ]; then
	version=$source
	source=$(module_dir "$version")
fi
[ -z "$install" ] || [ -n "$version" ] || die "-install takes a version, not a directory"
mapfile -t patches < <(series_files)
dir=${dir:-$(mktemp -d)}
git_dir() { git -C "$dir" -c user.name=rebase.sh -c user.email=rebase.sh@localhost "$@"; }

if [ "$from" -eq 1 ]; then
	[ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
	mkdir -p "$dir"
	(cd "$source" && tar -c --exclude=.git .) | tar -x -C "$dir"
	chmod -R u+w "$dir"
	git_dir init -q
	git_dir add -A -f
	git_dir commit -q -m "upstream ${version:-$source}"
fi

# three_way_blobs stores in DIR's repository the files each patch was made
# for, so that git apply --3way finds the blobs its index lines name.
three_way_blobs() {
	local tmp p
	tmp=$(mktemp -d)
	kept_paths | copy_paths "$(module_dir "$(upstream_version)")" "$tmp"
	for p in "${patches[@]}"; do
		find "$tmp" -path "$tmp/.git" -prune -o -type f -print | git_dir hash-object -w --stdin-paths >/dev/null
		apply "$tmp" "$p"
	done
	rm -rf "$tmp"
}
blobs=""
for ((k = from; k <= ${#patches[@]}; k++)); do
	p=${patches[k - 1]}
	name=$(basename "$p")
	if ! git_dir apply --index --whitespace=nowarn --exclude=interp/op.go "$p" 2>/dev/null; then
		[ -n "$blobs" ] || { three_way_blobs; blobs=1; }
		echo "$name does not apply as it is: merging it (git apply --3way)"
		git_dir apply --index --3way --whitespace=nowarn --exclude=interp/op.go "$p" ||
			die "$name leaves conflicts in $dir: resolve them (and go generate ./interp if it changes internal/cmd/genop), commit, and go on with: $0 -o $dir -from $((k + 1))${version:+ $version}"
	fi
	if patch_paths "$p" | grep -q '^internal/cmd/genop/'; then
		(cd "$dir/interp" && go generate .)
		git_dir add -A
	fi
	git_dir commit -q -m "$(sed -n 's/^Subject: //p' "$p" | head -1) ($name)"
	echo "applied $name"
done
echo "result: $dir"

# The series' tests.
(cd "$dir" && go build ./... && go vet ./interp)
programs=$(for p in "${patches[@]}"; do patch_paths "$p"; done | sed -n 's|^_test/\([^/]*\.go\)$|\1|p' | sort -u)
if [ -n "$programs" ]; then
	echo "the series' programs in _test, under TestFile and TestInterpConsistencyBuild:" $programs
	run=$(echo "$programs" | sed 's/\./\\./g' | paste -sd'|')
	(cd "$dir" && go test -count=1 -run "^(TestFile|TestInterpConsistencyBuild)\$/^($run)\$" ./interp)
fi
echo "the rlm tests:"
(cd "$dir" && go test -count=1 -run '^TestRLM' ./interp)

if [ -n "$full" ]; then
	failing() { (cd "$1" && go test -short -count=1 ./interp 2>&1 || true) | sed -n 's/^ *--- FAIL: \([^ ]*\).*/\1/p' | sort; }
	before=$(mktemp -d)
	(cd "$source" && tar -c --exclude=.git .) | tar -x -C "$before"
	chmod -R u+w "$before"
	failing "$before" >"$before.failing"
	failing "$dir" >"$dir.failing"
	echo "upstream's interp suite: $(wc -l <"$before.failing") tests fail on $source, $(wc -l <"$dir.failing") with the series"
	new=$(comm -13 "$before.failing" "$dir.failing")
	rm -rf "$before" "$before.failing" "$dir.failing"
	[ -z "$new" ] || die "with the series, these fail too: $new"
fi

# commit_files COMMIT DST copies the kept files and those the series adds,
# as COMMIT of DIR has them, to DST.
commit_files() {
	local p
	mkdir -p "$2"
	{
		kept_paths
		added_paths
	} | sort -u | while read -r p; do
		if git_dir cat-file -e "$1:$p" 2>/dev/null; then
			mkdir -p "$2/$(dirname "$p")"
			git_dir show "$1:$p" >"$2/$p"
		fi
	done
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=${#patches[@]}
if [ -n "$install" ]; then
	for ((k = 0; k <= n; k++)); do commit_files "HEAD~$((n - k))" "$work/t$k"; done
	for ((k = 1; k <= n; k++)); do
		{
			patch_header "${patches[k - 1]}"
			tree_diff "$work/t$((k - 1))" "$work/t$k"
		} >"$work/patch"
		mv "$work/patch" "${patches[k - 1]}"
	done
	write_upstream "$version" "$work/t0"
	(cd "$COPY" && find . -type f | sed 's|^\./||') | grep -vxF -f <(local_paths) | (cd "$COPY" && xargs rm -f)
	cp -r "$work/t$n/." "$COPY/"
	"$PATCHES/check.sh"
	echo "installed: the copy is $version with the series"
elif [ "$version" = "$(upstream_version)" ]; then
	commit_files HEAD "$work/result"
	mkdir "$work/copy"
	copy_tree "$work/copy"
	same_tree "$work/copy" "$work/result" || die "the result is not the copy"
	echo "the result is the copy (../yaegi), but for the copy's own files and the upstream files it drops"
fi
