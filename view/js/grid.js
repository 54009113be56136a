/* The program grid: sample groups (a thread's samples in one time bucket,
 * at their mean time) and code marks, in time order. The bar selects, by
 * the time index (timeline.js), the nearest event and scrolls to it; the
 * nearest group and mark of each thread are highlighted. Clicking a row
 * moves the bar to its time and centres the range on it. Only the rows in
 * sight exist in the page. */

const ROW_H = 22;

function Grid(m) {
	const box = $("grid"), spacer = $("grid-spacer"), n = m.rowRef.length;
	const pool = new Map(); /* row index -> element */
	let sel = -1, near = new Set(), scrolledFor = NaN;

	spacer.style.height = n * ROW_H + "px";
	const notes = [];
	notes.push(m.sTimes.length + " sample groups, " + m.marks.length + " marks");
	$("grid-note").textContent = notes.join("; ");
	if (!m.marks.length) {
		const note = noteEl("No code marks in this profile: record with ", "dataprof record --markers",
				    " (the program marks with dataprof/markers.h).");
		note.id = "marks-note";
		$("grid-panel").insertBefore(note, $("grid-panel").querySelector(".grid-head"));
	}
	box.addEventListener("scroll", () => rows());
	box.addEventListener("click", (e) => {
		const r = e.target.closest(".grid-row");
		/* a row's function opens its code (annotate.js), and the bar comes along */
		if (e.target.classList.contains("fn-link") && annotApi)
			annotApi.open({ fn: +e.target.dataset.fn });
		if (r)
			centreOn(m.rowTime[+r.dataset.row]);
	});

	function rowEl(r) {
		let e = pool.get(r);
		if (e)
			return e;
		e = el("div", "grid-row");
		e.dataset.row = r;
		e.dataset.t = m.rowTime[r];
		e.style.top = r * ROW_H + "px";
		const ref = m.rowRef[r];
		const time = el("span", "num", fmtTime(m.rowTime[r]));
		let thread, what, count, fnEl = null;
		if (ref >= 0) {
			const l = m.lanes[m.gLane[ref]];
			thread = l.name + " " + l.tid;
			const obj = groupTop(m, ref, "object"), fn = groupTop(m, ref, "function");
			what = obj + " · ";
			const fi = annotApi ? annotApi.fnIndex(fn) : -1;
			fnEl = el("span", fi >= 0 ? "fn-link" : "", fn);
			if (fi >= 0) {
				fnEl.dataset.fn = fi;
				fnEl.title = "open its code (annotate)";
			}
			count = fmtCount(m.gCount[ref]);
			e.dataset.kind = "samples";
		} else {
			const mk = m.marks[-ref - 1], l = m.lanes[mk.lane];
			e.classList.add("mark");
			thread = l.name + " " + l.tid;
			what = mk.region;
			count = "";
			e.title = "mark '" + mk.name + "', its overhead " + fmtTime(mk.overhead) +
				(mk.until !== undefined ? "; region " + fmtTime(mk.until - mk.t) : "");
			e.dataset.kind = "mark";
		}
		const whatEl = el("span", "what", what);
		if (fnEl)
			whatEl.appendChild(fnEl);
		e.append(time, el("span", "", thread), whatEl, el("span", "num", count));
		spacer.appendChild(e);
		pool.set(r, e);
		return e;
	}

	/* Keeps the rows in sight (and a few more) in the page. */
	function rows() {
		const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 8);
		const last = Math.min(n, Math.ceil((box.scrollTop + box.clientHeight) / ROW_H) + 8);
		for (const [r, e] of pool)
			if (r < first || r >= last) {
				e.remove();
				pool.delete(r);
			}
		for (let r = first; r < last; r++) {
			const e = rowEl(r);
			e.classList.toggle("sel", r === sel);
			e.classList.toggle("near", near.has(r));
		}
	}

	/* The nearest event to t of each kind and thread (timeline.js). */
	function nearest(t) {
		const ov = m.overlap;
		const s = tlFind(m.sTimes, ov, t, TL_NEAREST, null);
		const k = tlFind(m.mTimes, ov, t, TL_NEAREST, null);
		let best = -1;
		if (s >= 0 && k >= 0) {
			const ds = Math.abs(m.sTimes[s] - t), dk = Math.abs(m.mTimes[k] - t);
			/* the nearer; on a tie the earlier, then the samples */
			best = ds < dk || (ds === dk && m.sTimes[s] <= m.mTimes[k]) ? m.rowOfSample[s] : m.rowOfMark[k];
		} else if (s >= 0) {
			best = m.rowOfSample[s];
		} else if (k >= 0) {
			best = m.rowOfMark[k];
		}
		const set = new Set();
		for (const l of m.threads) {
			/* a thread's groups are in time order: the filter by thread is
			 * its own slice */
			const g = tlFind(m.gTime.subarray(l.g0, l.g1), ov, t, TL_NEAREST, null);
			if (g >= 0)
				set.add(m.rowOfSample[sortedIndexOfGroup(l.g0 + g)]);
			const mk = tlFind(m.laneMarkTimes[l.i], ov, t, TL_NEAREST, null);
			if (mk >= 0)
				set.add(m.rowOfMark[m.laneMarks[l.i][mk].k]);
		}
		return { best, set };
	}

	/* group index -> its place in sOrder */
	let inv = null;
	function sortedIndexOfGroup(g) {
		if (!inv) {
			inv = new Uint32Array(m.sOrder.length);
			m.sOrder.forEach((gi, i) => { inv[gi] = i; });
		}
		return inv[g];
	}

	return {
		selected: () => sel,
		render(c) {
			if (c.bar || !Number.isFinite(scrolledFor) || c.resize) {
				const r = nearest(state.bar);
				sel = r.best;
				near = r.set;
				box.dataset.sel = sel;
				box.dataset.bar = state.bar;
				if (sel >= 0) {
					box.scrollTop = Math.max(0, sel * ROW_H - box.clientHeight / 2 + ROW_H / 2);
				}
				scrolledFor = state.bar;
				const ov = m.overlap;
				const out = !ov || state.bar < ov[0] || state.bar > ov[1];
				$("grid-note").textContent = m.sTimes.length + " sample groups, " + m.marks.length +
					" marks" + (out ? " · the bar is outside the time all kinds of events cover" +
					(ov ? " (" + fmtTime(ov[0]) + " – " + fmtTime(ov[1]) + ")" : "") + ": no nearest event" : "");
			}
			rows();
		},
	};
}
