// dataprof export, read back by parsers that are not dataprof's:
//   node export_test.js DATAPROF PROFILE OUTDIR [--expect-marks] [--expect-counters]
// Perfetto: the trace event JSON checked against the format (fields per
// phase, counter tracks, B/E balanced and nested per thread, a sample event
// per sample). pprof: the gzip-compressed profile.proto decoded by the
// pprof-format package; its references checked and its totals (samples,
// the event's period) compared with `dataprof report --json`.
// Prints one line per check, then "N passed, N failed".
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");
const { execFileSync } = require("child_process");
const { Profile } = require("pprof-format");
const { check, finish } = require("./lib.js");

const [dataprof, profile, outDir, ...flags] = process.argv.slice(2);

const json = path.join(outDir, "trace.json"), pb = path.join(outDir, "profile.pb.gz");
execFileSync(dataprof, ["export", "--perfetto", json, "--pprof", pb, profile], { stdio: "inherit" });
const report = JSON.parse(execFileSync(dataprof, ["report", "--json", "--by", "event", profile], { maxBuffer: 1 << 28 }));

function perfetto() {
	const t = JSON.parse(fs.readFileSync(json, "utf8"));
	check("perfetto: a JSON object with a traceEvents array", Array.isArray(t.traceEvents));
	const bad = [], stacks = new Map(), counters = new Set(), names = new Set();
	let samples = 0, slices = 0;
	const num = (v) => typeof v === "number" && Number.isFinite(v);
	t.traceEvents.forEach((e, i) => {
		const why = (w) => bad.length < 5 && bad.push(`#${i} ${w}: ${JSON.stringify(e).slice(0, 160)}`);
		if (!["i", "B", "E", "C", "M", "X"].includes(e.ph))
			return why("unknown phase");
		if (!num(e.pid))
			return why("pid");
		if (e.ph !== "C" && !num(e.tid))
			return why("tid");
		if (e.ph !== "M" && !num(e.ts))
			return why("ts");
		if (e.ph !== "E" && (typeof e.name !== "string" || !e.name))
			return why("name");
		if (e.ph === "i") {
			if (!["t", "p", "g"].includes(e.s))
				return why("instant scope");
			if (e.cat === "sample") {
				samples++;
				for (const k of ["object", "member", "line", "verdict"])
					if (typeof e.args[k] !== "string")
						return why("sample arg " + k);
			}
		} else if (e.ph === "C") {
			if (!e.args || !Object.values(e.args).length || !Object.values(e.args).every(num))
				return why("counter values");
			counters.add(e.name);
		} else if (e.ph === "M") {
			if (!["thread_name", "process_name"].includes(e.name) || typeof e.args.name !== "string")
				return why("metadata");
			names.add(e.pid + "/" + e.tid);
		}
	});
	check("perfetto: every event has the fields of its phase", !bad.length, bad.join("; "));
	// B and E per thread, in time order (stable, as the viewers sort)
	const order = t.traceEvents.map((e, i) => [e, i]).filter(([e]) => e.ph === "B" || e.ph === "E")
		.sort((a, b) => a[0].ts - b[0].ts || a[1] - b[1]);
	let nesting = "";
	for (const [e] of order) {
		const k = e.pid + "/" + e.tid, s = stacks.get(k) || [];
		if (e.ph === "B") {
			s.push(e);
			slices++;
		} else if (!s.length) {
			nesting = nesting || `E without B on ${k} at ${e.ts}`;
		} else if (s.pop().ts > e.ts) {
			nesting = nesting || `E before its B on ${k} at ${e.ts}`;
		}
		stacks.set(k, s);
	}
	for (const [k, s] of stacks)
		if (s.length)
			nesting = nesting || `${s.length} slices left open on ${k}`;
	check("perfetto: B/E slices balanced and nested per thread", !nesting, nesting || `${slices} slices`);
	if (flags.includes("--expect-marks"))
		check("perfetto: marker regions as slices", slices > 0, `${slices}`);
	if (flags.includes("--expect-counters"))
		check("perfetto: counter tracks", counters.size > 0, [...counters].slice(0, 3).join(", "));
	check("perfetto: one instant event per sample kept by report", samples === report.total.samples,
	      `${samples} events, report ${report.total.samples}`);
	check("perfetto: every sampled thread is named", t.traceEvents.filter((e) => e.ph === "i")
		.every((e) => names.has(e.pid + "/" + e.tid)));
}

function pprof() {
	const raw = fs.readFileSync(pb);
	check("pprof: gzip-compressed", raw[0] === 0x1f && raw[1] === 0x8b);
	const p = Profile.decode(zlib.gunzipSync(raw));
	const S = p.stringTable.strings;
	check("pprof: string 0 is empty", S[0] === "");
	const str = (i) => S[Number(i)];
	const types = p.sampleType.map((v) => str(v.type) + "/" + str(v.unit));
	check("pprof: sample types: samples/count, then each event's metric", types[0] === "samples/count" &&
	      types.length === 1 + report.events.length, types.join(", "));
	if (report.events.length === 1 && report.events[0].name === "cpu-clock")
		check("pprof: cpu-clock as cpu/nanoseconds", types[1] === "cpu/nanoseconds");
	const locs = new Map(p.location.map((l) => [Number(l.id), l]));
	const funcs = new Map(p.function.map((f) => [Number(f.id), f]));
	let refs = "", labelled = 0;
	const totals = new Array(types.length).fill(0n);
	for (const s of p.sample) {
		s.value.forEach((v, k) => { totals[k] += BigInt(v); });
		for (const id of s.locationId)
			if (!locs.has(Number(id)))
				refs = refs || `location ${id}`;
		if (s.label.some((l) => str(l.key) === "data_object"))
			labelled++;
		for (const l of s.label)
			if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(str(l.key)))
				refs = refs || `label key '${str(l.key)}'`;
	}
	for (const l of p.location)
		for (const ln of l.line)
			if (!funcs.has(Number(ln.functionId)))
				refs = refs || `function ${ln.functionId}`;
	for (const f of p.function)
		if (str(f.name) === undefined)
			refs = refs || `function name ${f.name}`;
	check("pprof: locations, functions, strings all resolve; label keys are plain names", !refs, refs);
	check("pprof: samples carry a data_object label", labelled > 0, `${labelled} of ${p.sample.length}`);
	check("pprof: total samples equal report's", totals[0] === BigInt(report.total.samples),
	      `${totals[0]} vs ${report.total.samples}`);
	for (let e = 0; e < report.events.length; e++) {
		const want = BigInt(report.rows.find((r) => r.key.event === report.events[e].name)?.by_event[e].period || 0);
		check(`pprof: total ${types[1 + e]} equals report's period of ${report.events[e].name}`,
		      totals[1 + e] === want, `${totals[1 + e]} vs ${want}`);
	}
	const fnames = new Set(p.function.map((f) => str(f.name)));
	check("pprof: functions named", fnames.size > 0 && ![...fnames].every((n) => !n), [...fnames].slice(0, 5).join(", "));
}

try {
	perfetto();
	pprof();
} catch (e) {
	check("the test ran to its end", false, e.stack);
}
finish();
