#!/usr/bin/env bash
# Makes the history page the browser test reads, into DIR:
#   history_page.sh DATAPROF FIXTURE_DIR DIR
# four commits of the layout fixture, two runs each: two of layout B, then
# two of layout A, where struct item.b sits on a colder cache line than .a
# (a regression at the third commit): history.sqlite and history.html.
set -euo pipefail
dataprof=$1 fixtures=$2 dir=$3
mkdir -p "$dir"
cd "$dir"
rm -f history.sqlite history.html ./*.dprof
for c in 1 2 3 4; do
	fx=$fixtures/b/layout_O2
	[ "$c" -lt 3 ] || fx=$fixtures/layout_O2
	for r in 1 2; do
		"$dataprof" record -q --heap -e cpu-clock -F 4000 -o "c$c-$r.dprof" -- "$fx" >/dev/null
	done
	"$dataprof" history --db history.sqlite add --commit "c$c" \
		--commit-time "2024-05-0${c}T10:00:00Z" --branch main "c$c-1.dprof" "c$c-2.dprof"
done
"$dataprof" history --db history.sqlite show --per run --html history.html
echo "history.html: $(stat -c %s history.html) bytes"
