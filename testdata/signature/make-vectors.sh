#!/usr/bin/env bash
# Recomputes vectors.tsv (name, canonical string, signature) from cases.txt
# with coreutils sort and openssl, independently of the SDK's Go code.
set -euo pipefail
cd "$(dirname "$0")"
export LC_ALL=C

name="" key="" values=()
out=$(mktemp)
flush() {
  [ -n "$name" ] || return 0
  canonical=$(printf '%s\n' "${values[@]}" | sort | paste -sd'|' -)
  sig=$(printf '%s' "$canonical" | openssl dgst -sha256 -hmac "$key" | sed 's/^.*= //')
  printf '%s\t%s\t%s\n' "$name" "$canonical" "$sig" >>"$out"
}
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    '#'*|'') continue ;;
    'case '*) flush; name=${line#case }; key="" values=() ;;
    'key '*) key=${line#key } ;;
    *)
      param=${line%%=*}
      [ "$param" = signature ] || values+=("${line#*=}")
      ;;
  esac
done <cases.txt
flush
mv "$out" vectors.tsv
