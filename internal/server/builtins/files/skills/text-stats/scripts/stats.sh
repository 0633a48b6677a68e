#!/bin/sh
# Prints the lines, words and characters of the text given as arguments
# (or on standard input) and its five longest words, longest first.
set -eu
if [ "$#" -gt 0 ]; then
	text=$*
else
	text=$(cat)
fi
count() { printf '%s\n' "$text" | wc "$1" | tr -d ' '; }
echo "lines: $(count -l)"
echo "words: $(count -w)"
echo "characters: $(printf '%s' "$text" | wc -m | tr -d ' ')"
echo "longest:"
printf '%s\n' "$text" | tr -s ' \t.,;:!?()"' '[\n*]' |
	awk 'length($0) > 0 { print length($0), $0 }' | sort -rn -k1,1 -s | awk '!seen[$2]++ { print $2 }' | head -n 5
