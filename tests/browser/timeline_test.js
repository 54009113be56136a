// The page's time index (view/js/timeline.js) answers as report/timeline.h
// does: tl_query prints random events and the C index's answers to random
// queries (nearest, before, after; any thread or one); the same queries are
// put to the JS index.   node timeline_test.js TL_QUERY TIMELINE_JS
"use strict";
const { execFileSync } = require("child_process");
const { tlOverlap, tlFind } = require(process.argv[3]);
const { check, finish } = require("./lib.js");

for (const seed of [1, 2, 3, 4]) {
	const out = execFileSync(process.argv[2], [String(seed)], { encoding: "utf8" });
	const ev = [[], [], []];
	const queries = [];
	for (const line of out.split("\n")) {
		const f = line.split(" ");
		if (f[0] === "E")
			ev[+f[1]].push({ time: +f[2], tid: +f[3], ref: +f[4] });
		else if (f[0] === "Q")
			queries.push({ kind: +f[1], time: +f[2], dir: +f[3], tid: +f[4], ref: +f[5] });
	}
	// sorted by time, equal times in the order added, as the C index keeps them
	for (const k of ev)
		k.forEach((e, i) => { e.i = i; }), k.sort((a, b) => a.time - b.time || a.i - b.i);
	const times = ev.map((k) => Float64Array.from(k, (e) => e.time));
	const ov = tlOverlap(ev.map((k) => (k.length ? [k[0].time, k[k.length - 1].time] : null)));
	let bad = 0, first = "";
	for (const q of queries) {
		const evs = ev[q.kind];
		const i = tlFind(times[q.kind], ov, q.time, q.dir, q.tid < 0 ? null : (j) => evs[j].tid === q.tid);
		const ref = i < 0 ? -1 : evs[i].ref;
		if (ref !== q.ref) {
			bad++;
			first = first || `kind ${q.kind} time ${q.time} dir ${q.dir} tid ${q.tid}: C ${q.ref}, JS ${ref}`;
		}
	}
	check(`seed ${seed}: ${queries.length} queries, ${bad} answered differently`, bad === 0, first);
}
finish();
