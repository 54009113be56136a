/* The page's data (view/model.c's JSON, docs/view.md) decoded into typed
 * arrays, and the sums the panels draw from it. */

/* The records of data (model.c's cells or groups: base64 varints), lane by
 * lane, those of lane l from index l[first] to l[end]: each starts with its
 * bucket's step from the lane's previous record; each(i, bucket, l, next)
 * reads the rest of record i with next. */
function laneRecords(lanes, data, first, end, each) {
	const next = varintReader(b64bytes(data));
	for (const l of lanes) {
		let b = 0;
		for (let i = l[first]; i < l[end]; i++) {
			b += next();
			each(i, b, l, next);
		}
	}
}

/* A column per record field: o[name], a new spec[name] (a typed array
 * type) of n. */
function typedColumns(o, n, spec) {
	for (const [name, T] of Object.entries(spec))
		o[name] = new T(n);
}

function loadModel(d) {
	const S = d.strings;
	const m = {
		d, S,
		bw: d.time.bucket_ns,
		nb: d.time.nbuckets,
		attrs: d.attrs,
		col: {},
		ncombos: d.ncombos,
	};
	d.attrs.forEach((a, i) => { m.col[a] = Uint32Array.from(d.combos[i]); });
	m.timeMetric = d.events.length > 0 && d.events.every((e) => e.unit === "ns");

	/* lanes and their cells: per cell the bucket, combination, count, period */
	m.lanes = d.lanes.map((l, i) => ({
		i, kind: l.kind, pid: l.pid, tid: l.tid, cpu: l.cpu, name: S[l.name],
		c0: l.cells[0], c1: l.cells[1], g0: l.groups[0], g1: l.groups[1], total: 0,
	}));
	typedColumns(m, d.ncells,
		{ cBucket: Uint32Array, cCombo: Uint32Array, cCount: Float64Array, cPeriod: Float64Array });
	laneRecords(m.lanes, d.cells, "c0", "c1", (i, b, l, next) => {
		m.cBucket[i] = b;
		m.cCombo[i] = next();
		const c = next();
		m.cCount[i] = c;
		m.cPeriod[i] = next();
		l.total += c;
	});
	/* sample groups: per thread and bucket, the count and the mean time */
	const ng = d.ngroups;
	typedColumns(m, ng,
		{ gBucket: Uint32Array, gCount: Float64Array, gTime: Float64Array, gLane: Uint32Array });
	laneRecords(m.lanes, d.groups, "g0", "g1", (i, b, l, next) => {
		m.gBucket[i] = b;
		m.gCount[i] = next();
		m.gTime[i] = b * m.bw + next();
		m.gLane[i] = l.i;
	});
	m.threads = m.lanes.filter((l) => l.kind === "thread");
	m.cpus = m.lanes.filter((l) => l.kind === "cpu");
	m.samples = m.threads.reduce((s, l) => s + l.total, 0);

	/* the time index's sample kind: the groups by time */
	m.sOrder = Uint32Array.from({ length: ng }, (_, i) => i).sort((a, b) => m.gTime[a] - m.gTime[b] || a - b);
	m.sTimes = Float64Array.from(m.sOrder, (i) => m.gTime[i]);

	/* marks by time; each names the region it opens (to the thread's next) */
	m.marks = d.marks.map((x, i) => ({ i, t: x[0], lane: x[1], name: S[x[2]], overhead: x[3] }));
	m.marks.sort((a, b) => a.t - b.t || a.i - b.i);
	const lastOf = new Map();
	m.marks.forEach((mk, k) => {
		mk.k = k;
		const prev = lastOf.get(mk.lane);
		if (prev)
			prev.region = prev.name + ".." + mk.name, prev.until = mk.t;
		lastOf.set(mk.lane, mk);
	});
	for (const mk of lastOf.values())
		mk.region = mk.name + "..end";
	m.mTimes = Float64Array.from(m.marks, (x) => x.t);
	m.laneMarks = m.lanes.map(() => []);
	for (const mk of m.marks)
		m.laneMarks[mk.lane].push(mk);
	m.laneMarkTimes = m.laneMarks.map((a) => Float64Array.from(a, (x) => x.t));

	/* the overlap of the kinds, as report/timeline.h finds it */
	m.overlap = tlOverlap([d.time.samples || null, d.time.readings || null, d.time.marks || null]);

	/* the whole time axis */
	const ends = [];
	for (const k of ["samples", "readings", "marks"])
		if (d.time[k])
			ends.push(d.time[k][0], d.time[k][1]);
	if (m.nb)
		ends.push(m.nb * m.bw);
	m.full = ends.length ? [Math.min(...ends), Math.max(...ends)] : [0, 1e9];
	if (m.full[1] <= m.full[0])
		m.full[1] = m.full[0] + 1e6;

	/* grid rows: sample groups and marks in one time order.
	 * row >= 0: group sOrder[row]; < 0: mark -row - 1 */
	const nrows = ng + m.marks.length;
	m.rowRef = new Int32Array(nrows);
	m.rowTime = new Float64Array(nrows);
	m.rowOfSample = new Uint32Array(ng);
	m.rowOfMark = new Uint32Array(m.marks.length);
	for (let i = 0, j = 0, r = 0; r < nrows; r++) {
		if (j >= m.marks.length || (i < ng && m.sTimes[i] <= m.mTimes[j])) {
			m.rowRef[r] = m.sOrder[i];
			m.rowTime[r] = m.sTimes[i];
			m.rowOfSample[i++] = r;
		} else {
			m.rowRef[r] = -j - 1;
			m.rowTime[r] = m.mTimes[j];
			m.rowOfMark[j++] = r;
		}
	}
	m.classCache = {};
	return m;
}

/* Per combination, the colour class of its value of attr: 0..9 the ten
 * values with most samples over the whole profile (so that colours stay put
 * while panning), 10 the rest. */
function colorClasses(m, attr) {
	if (m.classCache[attr])
		return m.classCache[attr];
	const col = m.col[attr], tot = new Map();
	for (const l of m.threads)
		for (let i = l.c0; i < l.c1; i++) {
			const v = col[m.cCombo[i]];
			tot.set(v, (tot.get(v) || 0) + m.cCount[i]);
		}
	const top = [...tot.entries()].sort((a, b) => b[1] - a[1]).slice(0, PALETTE.length);
	const cls = new Uint8Array(m.ncombos).fill(PALETTE.length);
	const rank = new Map(top.map((e, k) => [e[0], k]));
	for (let c = 0; c < m.ncombos; c++) {
		const k = rank.get(col[c]);
		if (k !== undefined)
			cls[c] = k;
	}
	const res = { cls, values: top.map((e) => ({ name: m.S[e[0]], samples: e[1] })), other: tot.size > top.length };
	m.classCache[attr] = res;
	return res;
}

/* 1 for the combinations the filter keeps ({object, member, line} string
 * ids, each optional), all when there is none. */
function filterPass(m, f) {
	const pass = new Uint8Array(m.ncombos);
	for (let c = 0; c < m.ncombos; c++)
		pass[c] = !f || ((f.object === undefined || m.col.object[c] === f.object) &&
				 (f.member === undefined || m.col.member[c] === f.member) &&
				 (f.line === undefined || m.col.line[c] === f.line)) ? 1 : 0;
	return pass;
}

/* The buckets that overlap [lo, hi). */
function bucketRange(m, lo, hi) {
	return [Math.max(0, Math.floor(lo / m.bw)), Math.min(m.nb, Math.ceil(hi / m.bw))];
}

/* Samples and period per combination over the thread lanes in [lo, hi);
 * the last range's kept, as the data view and the annotate pane both ask
 * for it in one redraw. */
function sumCombos(m, lo, hi) {
	const [b0, b1] = bucketRange(m, lo, hi);
	if (m.sumKey === b0 + "," + b1)
		return m.sumLast;
	const count = new Float64Array(m.ncombos), period = new Float64Array(m.ncombos);
	for (const l of m.threads) {
		for (let i = lowerBound(m.cBucket, b0, l.c0, l.c1); i < l.c1 && m.cBucket[i] < b1; i++) {
			count[m.cCombo[i]] += m.cCount[i];
			period[m.cCombo[i]] += m.cPeriod[i];
		}
	}
	m.sumKey = b0 + "," + b1;
	m.sumLast = { count, period };
	return m.sumLast;
}

/* The report's default view over [lo, hi): objects, then members, then
 * lines, by period, largest first. */
function dataTree(m, lo, hi) {
	const { count, period } = sumCombos(m, lo, hi);
	const root = { kids: new Map(), samples: 0, period: 0 };
	const keys = [m.col.object, m.col.member, m.col.line];
	for (let c = 0; c < m.ncombos; c++) {
		if (!count[c])
			continue;
		let n = root;
		n.samples += count[c];
		n.period += period[c];
		for (let d = 0; d < 3; d++) {
			const k = keys[d][c];
			let kid = n.kids.get(k);
			if (!kid)
				n.kids.set(k, kid = { key: k, kids: new Map(), samples: 0, period: 0 });
			kid.samples += count[c];
			kid.period += period[c];
			n = kid;
		}
	}
	const sortKids = (n) => {
		n.list = [...n.kids.values()].sort((a, b) => b.period - a.period || b.samples - a.samples);
		n.list.forEach(sortKids);
	};
	sortKids(root);
	return root;
}

/* The cells of lane l in the buckets of [b0, b1): indexes [i0, i1). */
function laneCells(m, l, b0, b1) {
	const i0 = lowerBound(m.cBucket, b0, l.c0, l.c1);
	return [i0, lowerBound(m.cBucket, b1, i0, l.c1)];
}

/* The value of attr with most samples in group g (its thread, its bucket). */
function groupTop(m, g, attr) {
	const l = m.lanes[m.gLane[g]], b = m.gBucket[g], col = m.col[attr];
	const [i0, i1] = laneCells(m, l, b, b + 1);
	const tot = new Map();
	for (let i = i0; i < i1; i++) {
		const v = col[m.cCombo[i]];
		tot.set(v, (tot.get(v) || 0) + m.cCount[i]);
	}
	let best = -1, bn = -1;
	for (const [v, n] of tot)
		if (n > bn)
			best = v, bn = n;
	return best >= 0 ? m.S[best] : "";
}
