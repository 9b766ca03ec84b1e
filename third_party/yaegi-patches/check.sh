#!/usr/bin/env bash
# check.sh [-series-only]
#
# Checks, without the network, that the series and the copy (../yaegi)
# agree; the copy's TestSeriesGivesCopy runs it. It fails when
#   - the copy holds a file that is neither a kept upstream file, nor one
#     the series adds, nor one of its own (upstream.txt), or the series
#     touches a file the copy does not have;
#   - the series, taken back out of the copy (last patch first), does not
#     give the kept upstream files byte for byte (their sha256 in
#     upstream.txt);
#   - applied to those files in order, it does not give the copy again;
#   - interp/op.go is not what internal/cmd/genop generates (skipped with
#     -series-only).
source "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t patches < <(series_files)

# Which files the copy may hold, and which the series may touch.
(cd "$COPY" && find . -type f | sed 's|^\./||' | sort) >"$work/copy"
{
	kept_paths
	added_paths
	local_paths
} | sort >"$work/allowed"
stray=$(comm -23 "$work/copy" "$work/allowed")
[ -z "$stray" ] || die "the copy holds files that are neither kept upstream files (upstream.txt), nor added by the series, nor its own: $stray"
for p in "${patches[@]}"; do
	missing=$(patch_paths "$p" | sort -u | comm -23 - "$work/copy" | grep -vxF -f <(kept_paths) || true)
	[ -z "$missing" ] || die "$(basename "$p") touches files the copy does not have: $missing"
done

# Out of the copy, last patch first: the kept upstream files.
mkdir "$work/base"
copy_tree "$work/base"
for ((k = ${#patches[@]}; k >= 1; k--)); do
	apply "$work/base" -R "${patches[k - 1]}" ||
		die "$(basename "${patches[k - 1]}") does not come out of the copy: the copy changed since the series was written (run regen.sh)"
done
(cd "$work/base" && find . -path ./.git -prune -o -type f -print | sed 's|^\./||' | sort) >"$work/base.files"
if ! diff <(kept_paths | sort) "$work/base.files" >"$work/files.diff"; then
	cat "$work/files.diff" >&2
	die "without the series, the copy's files are not the kept upstream files (< kept, > found)"
fi
awk '$1 == "keep" { print $2 "  " $3 }' "$UPSTREAM" >"$work/sums"
(cd "$work/base" && sha256sum --quiet -c "$work/sums") ||
	die "without the series, the copy's files are not upstream's $(upstream_version)"

# Into them, first patch first: the copy again.
for p in "${patches[@]}"; do
	apply "$work/base" "$p" || die "$(basename "$p") does not apply on the patches before it"
done
mkdir "$work/copy.tree"
copy_tree "$work/copy.tree"
same_tree "$work/copy.tree" "$work/base" || die "the series applied to upstream's files does not give the copy"

if [ "${1:-}" != "-series-only" ]; then
	(cd "$COPY" && go build -o "$work/genop" ./internal/cmd/genop)
	(cd "$work" && ./genop)
	cmp -s "$work/op.go" "$COPY/interp/op.go" ||
		die "interp/op.go is not what internal/cmd/genop generates: change the generator, then run go generate ./interp"
fi
echo "the series ($(upstream_version) + ${#patches[@]} patches) gives the copy"
