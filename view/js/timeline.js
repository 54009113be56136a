/* The time correlation index of report/timeline.h, over the page's arrays:
 * events of each kind sorted by time; a query finds the nearest event (or
 * the last at or before, the first at or after) by binary search, then
 * scans both ways for the nearest that passes a filter. Only the overlap of
 * the kinds that have events is correlated: outside it nothing is found. */

const TL_NEAREST = 0, TL_BEFORE = 1, TL_AFTER = 2;

/* extents: [first, last] of each kind, null for a kind without events.
 * Returns [lo, hi], or null when no kind has events or they do not overlap. */
function tlOverlap(extents) {
	let lo = -Infinity, hi = Infinity, any = false;
	for (const e of extents) {
		if (!e)
			continue;
		any = true;
		lo = Math.max(lo, e[0]);
		hi = Math.min(hi, e[1]);
	}
	return any && lo <= hi ? [lo, hi] : null;
}

/* The first index in sorted arr (a typed array) whose value is >= x. Here,
 * not in util.js, so that this file stands alone (tests/browser loads it
 * in node); the page's other files use it too. */
function lowerBound(arr, x, lo, hi) {
	lo = lo || 0;
	hi = hi === undefined ? arr.length : hi;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (arr[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index in times (sorted) of the event for t, or -1. filter(i) says
 * whether event i may be returned; null: any. Same choices as
 * dp_timeline_find: events at t count as before; nearest takes the earlier
 * on a tie. */
function tlFind(times, overlap, t, dir, filter) {
	const n = times.length;
	if (!overlap || t < overlap[0] || t > overlap[1] || !n)
		return -1;
	let at = lowerBound(times, t);
	while (at < n && times[at] === t)
		at++;
	let before = -1, after = -1;
	if (dir !== TL_AFTER) {
		for (let i = at - 1; i >= 0; i--)
			if (!filter || filter(i)) {
				before = i;
				break;
			}
		if (dir === TL_BEFORE)
			return before;
	}
	if (dir === TL_AFTER)
		at = lowerBound(times, t);
	for (let i = at; i < n; i++) {
		if (before >= 0 && times[i] - t > t - times[before])
			break;
		if (!filter || filter(i)) {
			after = i;
			break;
		}
	}
	if (dir === TL_AFTER || before < 0)
		return after;
	if (after < 0)
		return before;
	return times[after] - t < t - times[before] ? after : before;
}

if (typeof module !== "undefined")
	module.exports = { lowerBound, tlOverlap, tlFind, TL_NEAREST, TL_BEFORE, TL_AFTER };
