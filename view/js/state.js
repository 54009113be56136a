/* One state for every panel: the time range shown [lo, hi), the bar, the
 * attribute the lanes are coloured by, the data filter. A change marks what
 * changed and redraws every panel once, on the next animation frame. */

const state = {
	lo: 0, hi: 1,
	bar: 0,
	colorBy: "object",
	filter: null,   /* {object, member, line} string ids, or null */
	cpuLanes: false,
	annot: null,    /* the annotate pane: {fn, object, member, line}, or null */
};
const views = [];
let changed = {}, frame = 0, full = [0, 1];
const flushTimes = []; /* ms each redraw took, the last 100 (bench/view_render.js) */
const viewTimes = [];  /* ms of each panel in the last redraw */

function setState(patch) {
	for (const k in patch) {
		if (state[k] !== patch[k])
			changed[k] = true;
		state[k] = patch[k];
	}
	if (!frame)
		frame = requestAnimationFrame(flush);
}

function flush() {
	const t0 = performance.now();
	frame = 0;
	const c = changed;
	changed = {};
	views.forEach((v, i) => {
		const t = performance.now();
		v.render(c);
		viewTimes[i] = performance.now() - t;
	});
	flushTimes.push(performance.now() - t0);
	if (flushTimes.length > 100)
		flushTimes.shift();
}

/* The plot area's width in CSS pixels: the same in every panel. */
function plotWidth() {
	return Math.max(1, $("ruler").clientWidth);
}

function xOf(t) {
	return (t - state.lo) / (state.hi - state.lo) * plotWidth();
}

function tOf(x) {
	return state.lo + x / plotWidth() * (state.hi - state.lo);
}

/* A range no narrower than 1 µs and no wider than the profile. */
function clampRange(lo, hi) {
	const span = Math.min(Math.max(hi - lo, 1000), full[1] - full[0]);
	if (lo < full[0])
		lo = full[0];
	if (lo + span > full[1])
		lo = full[1] - span;
	return [lo, lo + span];
}

/* Zooms by f (< 1: in) around the bar: the bar keeps its time and, unless
 * the range meets the profile's ends, its place on the screen. */
function zoomAroundBar(f) {
	const b = state.bar;
	const [lo, hi] = clampRange(b - (b - state.lo) * f, b + (state.hi - b) * f);
	setState({ lo, hi });
}

function setRange(lo, hi) {
	[lo, hi] = clampRange(lo, hi);
	const patch = { lo, hi };
	/* a range chosen away from the bar brings the bar along, to its middle */
	if (state.bar < lo || state.bar > hi)
		patch.bar = (lo + hi) / 2;
	setState(patch);
}

/* Moves the bar to t and the range so that t is in its middle. */
function centreOn(t) {
	const half = (state.hi - state.lo) / 2;
	const [lo, hi] = clampRange(t - half, t + half);
	setState({ bar: t, lo, hi });
}

function resetRange() {
	setState({ lo: full[0], hi: full[1] });
}
