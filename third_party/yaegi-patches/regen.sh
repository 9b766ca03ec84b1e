#!/usr/bin/env bash
# regen.sh [-into N] [-new NAME]
#
# Writes the patch series again from the copy (../yaegi) and the upstream
# module it is made from (upstream.txt; go mod download fetches it into the
# module cache if need be). Change the copy, then run this to put the
# change into patch N of the series (default: the last; -new NAME adds a
# patch NAME.patch at the end of the series for it): the patches after N
# are taken back out of the copy, last first (each must still reverse-apply:
# a change to lines a later patch touches belongs to that patch), and what
# remains, against the upstream files with patches 1..N-1, is patch N.
# Each patch keeps its message (the text before its first diff). The
# sha256 of the kept upstream files in upstream.txt are written again
# (put "keep - PATH" there to keep one more upstream file). The new series
# is then checked to give the copy again.
source "$(dirname "$0")/lib.sh"

into="" new=""
while [ $# -gt 0 ]; do
	case $1 in
	-into) into=$2; shift 2 ;;
	-new) new=$2; shift 2 ;;
	*) die "usage: regen.sh [-into N] [-new NAME]" ;;
	esac
done

if [ -n "$new" ]; then
	[ ! -e "$PATCHES/$new.patch" ] || die "$new.patch exists"
	printf 'Subject: %s\n\n(What it fixes, how, and its tests.)\n---\n' "$new" >"$PATCHES/$new.patch"
	echo "$new.patch" >>"$PATCHES/series"
fi
mapfile -t patches < <(series_files)
n=${#patches[@]}
into=${into:-$n}
[ "$into" -ge 1 ] && [ "$into" -le "$n" ] || die "-into $into: the series has patches 1 to $n"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
upstream=$(module_dir "$(upstream_version)")

write_upstream "$(upstream_version)" "$upstream"

# t$k is the tree with patches 1..k: the copy for the last one, and the
# ones before N by taking patches out of it; the one before N from the
# upstream files.
mkdir "$work/t$n"
copy_tree "$work/t$n"
for ((k = n; k > into; k--)); do
	cp -a "$work/t$k" "$work/t$((k - 1))"
	apply "$work/t$((k - 1))" -R "${patches[k - 1]}" ||
		die "$(basename "${patches[k - 1]}") does not come out of the copy: the change touches its lines, so it belongs to it (-into $k) or a later patch"
done
base=$work/t$((into - 1))
mkdir -p "$base"
kept_paths | copy_paths "$upstream" "$base"
for ((k = 1; k < into; k++)); do
	apply "$base" "${patches[k - 1]}" || die "$(basename "${patches[k - 1]}") does not apply to the upstream files"
done

for ((k = into; k <= n; k++)); do
	p=${patches[k - 1]}
	diff=$(tree_diff "$work/t$((k - 1))" "$work/t$k")
	[ -n "$diff" ] || die "$(basename "$p") would be empty"
	{
		patch_header "$p"
		echo "$diff"
	} >"$work/patch"
	mv "$work/patch" "$p"
	echo "wrote $(basename "$p")"
done

"$PATCHES/check.sh" -series-only
