#!/bin/sh
# Writes a C file that holds FILE's bytes as a NUL-terminated array.
# Usage: scripts/embed.sh NAME FILE HEADER > out.c
# The array is `const unsigned char NAME[]` with `const size_t NAME_len`
# (without the NUL), as HEADER declares them. Only od and awk are needed.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 NAME FILE HEADER" >&2; exit 2; }
name=$1 file=$2 header=$3
printf '/* Generated from %s by scripts/embed.sh; do not edit. */\n' "$file"
printf '#include "%s"\n\n' "$header"
printf 'const unsigned char %s[] = {\n' "$name"
od -An -v -tu1 "$file" | awk 'NF { s = "   "; for (i = 1; i <= NF; i++) s = s " " $i ","; print s }'
printf '    0};\n\n'
printf 'const size_t %s_len = sizeof %s - 1;\n' "$name" "$name"
