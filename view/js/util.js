/* Small helpers the page's other files use. */

function $(id) {
	return document.getElementById(id);
}

function el(tag, cls, text) {
	const e = document.createElement(tag);
	if (cls)
		e.className = cls;
	if (text !== undefined)
		e.textContent = text;
	return e;
}

/* ns as a short time: 1.234 s, 12.35 ms, 480 µs */
function fmtTime(ns) {
	const a = Math.abs(ns);
	if (a >= 1e9)
		return (ns / 1e9).toFixed(a >= 1e11 ? 1 : 3) + " s";
	if (a >= 1e6)
		return (ns / 1e6).toFixed(a >= 1e8 ? 1 : 2) + " ms";
	if (a >= 1e3)
		return (ns / 1e3).toFixed(1) + " µs";
	return Math.round(ns) + " ns";
}

function fmtCount(n) {
	if (n >= 1e9)
		return (n / 1e9).toFixed(2) + "G";
	if (n >= 1e6)
		return (n / 1e6).toFixed(2) + "M";
	if (n >= 1e4)
		return (n / 1e3).toFixed(1) + "k";
	return String(Math.round(n));
}

/* A counter's rate or a gauge's level in its unit, as report prints it. */
function fmtValue(v, unit, kind) {
	if (v === null || v === undefined || Number.isNaN(v))
		return "–";
	if (kind === "counter") {
		if (unit === "ns")
			return (v / 1e9).toFixed(2) + " CPUs";
		if (unit === "bytes")
			return (v / 1048576).toFixed(1) + " MiB/s";
		return fmtCount(v) + "/s";
	}
	if (unit === "bytes")
		return (v / 1048576).toFixed(1) + " MiB";
	return fmtCount(v) + (unit && unit !== "events" ? " " + unit : "");
}

/* The same, shorter, for a chart's axis. */
function fmtAxis(v, unit, kind) {
	if (v === null || v === undefined || Number.isNaN(v))
		return "";
	if (kind === "counter" && unit === "ns")
		return (v / 1e9).toFixed(v >= 1e10 ? 0 : 1);
	if (unit === "bytes") {
		const g = v / 1073741824;
		return g >= 1 ? g.toFixed(g >= 100 ? 0 : 1) + "G" : (v / 1048576).toFixed(v >= 1048576 * 100 ? 0 : 1) + "M";
	}
	return fmtCount(v);
}

/* Ten colours that stay apart (Tableau 10), then grey for the rest. */
const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
		 "#ff9da7", "#9c755f", "#79706e"];
const OTHER_COLOR = "#c8ccd2";

/* base64 to bytes */
function b64bytes(s) {
	const bin = atob(s), n = bin.length, out = new Uint8Array(n);
	for (let i = 0; i < n; i++)
		out[i] = bin.charCodeAt(i);
	return out;
}

/* Reads LEB128 varints (model.c's encoding). Values stay below 2^53. */
function varintReader(bytes) {
	let pos = 0;
	return function next() {
		let v = 0, mul = 1, b;
		do {
			b = bytes[pos++];
			v += (b & 0x7f) * mul;
			mul *= 128;
		} while (b & 0x80);
		return v;
	};
}

/* lowerBound (the first index of a sorted array at or above a value):
 * timeline.js. */
