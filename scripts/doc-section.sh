#!/usr/bin/env bash
# doc-section.sh DOC HEADING SECTION - replace the section of the markdown
# file DOC that starts with the line HEADING (up to the next "## " heading)
# by the file SECTION, or append SECTION when DOC has no such heading.
set -u
[ $# -eq 3 ] || { echo "usage: doc-section.sh DOC HEADING SECTION" >&2; exit 2; }
doc=$1 head=$2 sect=$3
[ -f "$sect" ] || { echo "doc-section: $sect missing" >&2; exit 1; }
if [ -f "$doc" ] && grep -q "^$head" "$doc"; then
	awk -v s="$head" -v f="$sect" '
		index($0, s) == 1 { while ((getline l < f) > 0) print l; skip = 1; next }
		skip && /^## / { skip = 0 }
		!skip' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
else
	{ echo; cat "$sect"; } >>"$doc"
fi
