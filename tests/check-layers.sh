#!/bin/bash
# No libdl/*.c (nor internal header) includes the internal header of a layer above its own, nor
# of another layer of the same rank; every libdl/*.c has a layer.  The
# layers are the table at the end of libdl/README (its picture).  TAP.
src=${top_srcdir:-.}
readme=$src/libdl/README
declare -A file_rank file_layer hdr_rank hdr_layer
while read -r word rank layer rest; do
	[ "$word" = layer ] || continue
	for f in $rest; do
		case $f in
		*.h) hdr_rank[$f]=$rank; hdr_layer[$f]=$layer ;;
		*.c) file_rank[$f]=$rank; file_layer[$f]=$layer ;;
		esac
	done
done < "$readme"
files=("$src"/libdl/*.c)
for h in "${!hdr_rank[@]}"; do
	files+=("$src/libdl/$h")
	file_rank[$h]=${hdr_rank[$h]}
	file_layer[$h]=${hdr_layer[$h]}
done
echo "1..${#files[@]}"
n=0
for path in "${files[@]}"; do
	n=$((n + 1))
	f=${path##*/}
	if [ -z "${file_rank[$f]}" ]; then
		echo "not ok $n - $f: in no layer of libdl/README"
		continue
	fi
	bad=
	while read -r h; do
		[ -n "${hdr_rank[$h]}" ] || continue # public or system header
		if [ "${hdr_rank[$h]}" -gt "${file_rank[$f]}" ] ||
		   { [ "${hdr_rank[$h]}" -eq "${file_rank[$f]}" ] && [ "${hdr_layer[$h]}" != "${file_layer[$f]}" ]; }; then
			bad="$bad $h (${hdr_layer[$h]})"
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$path")
	if [ -n "$bad" ]; then
		echo "not ok $n - $f (layer ${file_layer[$f]}) includes a header of a layer above:$bad"
	else
		echo "ok $n - $f (layer ${file_layer[$f]})"
	fi
done
exit 0
