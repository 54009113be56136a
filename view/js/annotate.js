/* The annotate pane: a function's source lines interleaved with its
 * instructions, each with its samples, share, verdict mix and the data it
 * touched, heat-coloured by its share of the function's hottest — the
 * numbers of `dataprof annotate`, recounted over the time range shown from
 * the per-bucket counts in the page (view/annot.c). Opened from the Code
 * panel's function rows, a grid row's function, or a data row's "code"
 * button; while open it takes the place of the grid and the data view, and
 * closing it (× or Escape) brings them back. */

const HEAT = [220, 50, 32]; /* the hottest instruction's colour */
/* how the grid and the data view open the pane: {open(f), fnIndex(name)} */
let annotApi = null;

/* white at 0, HEAT at 1 */
function heatRGB(f) {
	return HEAT.map((c) => Math.round(255 + (c - 255) * f));
}

function loadAnnot(m) {
	const d = m.d.annotate;
	if (!d)
		return null;
	const S = m.S, r = d.rows, c = d.combos;
	const a = {
		d,
		verdicts : d.verdicts,
		fns : d.functions.map(
		    (f, i) => ({
			    i,
			    name : S[f.name],
			    binary : S[f.binary],
			    start : f.start,
			    end : f.end,
			    why : f.why ? S[f.why] : "",
			    lines : f.lines.map((l) => ({
							id : l[0],
							name : S[l[0]],
							path : S[l[1]],
							number : l[2],
							text : l[3] >= 0 ? S[l[3]] : null
						})),
			    r0 : f.rows[0],
			    r1 : f.rows[1],
			    /* the hottest ranges of the branch stacks (whole profile, as annotate)
			     */
			    ranges : (f.ranges || []).map((x) => ({
								  start : x[0],
								  end : x[1],
								  n : x[2],
								  insns : x[3],
								  lines : S[x[4]],
								  loop : !!x[5]
							  })),
		    })),
		rangesTotal : d.ranges || 0,
		addr : Float64Array.from(r.addr),
		text : Uint32Array.from(r.text),
		line : Int32Array.from(r.line),
		chain : Uint32Array.from(r.chain),
		starts : Uint8Array.from(r.starts),
		kInsn : Uint32Array.from(c.insn),
		kVerdict : Uint8Array.from(c.verdict),
		kObject : Int32Array.from(c.object),
		kMember : Uint32Array.from(c.member),
		kLevel : Uint32Array.from(c.level),
		ncombos : d.ncombos,
	};
	a.rowFn = new Uint32Array(a.addr.length);
	for (const f of a.fns)
		a.rowFn.fill(f.i, f.r0, f.r1);
	a.byName = new Map(a.fns.map((f) => [f.name, f]));
	/* per cell, by bucket: the step, the combination, count, period, weight, weighed samples */
	const n = d.ncells, next = varintReader(b64bytes(d.cells));
	a.cBucket = new Uint32Array(n);
	a.cCombo = new Uint32Array(n);
	a.cVal = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)];
	for (let i = 0, b = 0; i < n; i++) {
		b += next();
		a.cBucket[i] = b;
		a.cCombo[i] = next();
		for (let k = 0; k < 4; k++)
			a.cVal[k][i] = next();
	}
	return a;
}

/* Per combination, its count, period, weight, weighed samples over the
 * buckets of [b0, b1). */
function annotCombos(a, b0, b1) {
	const v = [0, 1, 2, 3].map(() => new Float64Array(a.ncombos));
	for (let i = lowerBound(a.cBucket, b0); i < a.cBucket.length && a.cBucket[i] < b1; i++)
		for (let k = 0; k < 4; k++)
			v[k][a.cCombo[i]] += a.cVal[k][i];
	return v;
}

/* The sums dataprof annotate --time gives for the buckets of [lo, hi): per
 * instruction row (rows: false, only per function: the closed pane's list,
 * redrawn at every pan step) and per function; total: the period of every
 * sample kept there (the shares' denominator, as annotate's). */
function annotSums(m, a, lo, hi, rows) {
	const [b0, b1] = bucketRange(m, lo, hi);
	const [cnt, per, wt, nw] = annotCombos(a, b0, b1);
	const nr = rows ? a.addr.length : 0;
	const s = {
		rows,
		samples: new Float64Array(nr), period: new Float64Array(nr), weight: new Float64Array(nr),
		nweight: new Float64Array(nr), verdicts: Array.from({ length: nr }, () => null),
		access: new Map(), levels: new Map(), fnSamples: new Float64Array(a.fns.length),
		fnPeriod: new Float64Array(a.fns.length), total: 0,
	};
	for (let k = 0; k < a.ncombos; k++) {
		if (!cnt[k])
			continue;
		const r = a.kInsn[k];
		s.fnSamples[a.rowFn[r]] += cnt[k];
		s.fnPeriod[a.rowFn[r]] += per[k];
		if (!rows)
			continue;
		s.samples[r] += cnt[k];
		s.period[r] += per[k];
		s.weight[r] += wt[k];
		s.nweight[r] += nw[k];
		(s.verdicts[r] = s.verdicts[r] || new Float64Array(6))[a.kVerdict[k]] += cnt[k];
		if (a.kObject[k]) {
			const key = a.kObject[k] + "," + a.kMember[k];
			const am = s.access.get(r) || new Map();
			am.set(key, (am.get(key) || 0) + cnt[k]);
			s.access.set(r, am);
		}
		if (a.kLevel[k]) {
			const lm = s.levels.get(r) || new Map();
			lm.set(a.kLevel[k], (lm.get(a.kLevel[k]) || 0) + cnt[k]);
			s.levels.set(r, lm);
		}
	}
	const { period } = sumCombos(m, lo, hi);
	for (let c = 0; c < period.length; c++)
		s.total += period[c];
	return s;
}

/* "v90 u10": the verdict letters and their % of the row's samples */
function verdictMix(s, r) {
	const v = s.verdicts[r];
	if (!v)
		return "";
	return [..."evurn"].map((l, k) => v[k] ? l + Math.round(100 * v[k] / s.samples[r]) : "").filter(Boolean).join(" ");
}

/* "nodes struct node.next 80%, ...; L1 hit 60%; weight 34", as annotate */
function dataText(m, s, r) {
	const parts = [], n = s.samples[r];
	const acc = [...(s.access.get(r) || new Map()).entries()].sort((x, y) => y[1] - x[1]);
	let other = 0;
	for (const [key, c] of acc) {
		const [o, mb] = key.split(",").map(Number);
		if (o < 0) {
			other += c;
			continue;
		}
		parts.push(m.S[o] + (mb ? " " + m.S[mb] : "") + (c !== n ? " " + Math.round(100 * c / n) + "%" : ""));
	}
	let t = parts.join(", ");
	if (other)
		t += ", +" + other + " more";
	const lv = [...(s.levels.get(r) || new Map()).entries()].map(([l, c]) => m.S[l] + " " + Math.round(100 * c / n) + "%");
	if (lv.length)
		t += (t ? "; " : "") + lv.join(", ");
	if (s.nweight[r])
		t += (t ? "; " : "") + "weight " + Math.round(s.weight[r] / s.nweight[r]);
	return t;
}

function Annotate(m) {
	const a = loadAnnot(m);
	const list = $("code-funcs"), pane = $("annot"), rowsBox = $("annot-rows");
	let sums = null, lastKey = "", selRow = -1, wasOpen = false;

	if (!a || !a.fns.length) {
		list.appendChild(el("div", "note", a ? "No function with code has samples." :
				    "No annotate data in this page (dataprof view --annotate-top 0)."));
		return { render() {}, annot: a };
	}
	$("code-note").textContent = a.fns.length + " functions annotated (of " + a.d.functions_sampled +
		" sampled; dataprof view --annotate-top N)";
	list.addEventListener("click", (e) => {
		const r = e.target.closest(".frow");
		if (r)
			setState({ annot: { fn: +r.dataset.fn } });
	});
	$("annot-close").addEventListener("click", () => setState({ annot: null }));
	document.addEventListener("keydown", (e) => {
		if (e.key === "Escape" && state.annot)
			setState({ annot: null });
	});
	rowsBox.addEventListener("click", (e) => {
		const r = e.target.closest(".arow");
		if (!r)
			return;
		if (r.classList.contains("aline")) {
			/* a source line filters the lanes by it: where in time it ran */
			const id = +r.dataset.line;
			setState({ filter: state.filter && state.filter.line === id && state.filter.object === undefined ? null : { line: id } });
		} else {
			selRow = +r.dataset.row;
			for (const x of rowsBox.querySelectorAll(".ainsn.sel"))
				x.classList.remove("sel");
			r.classList.add("sel");
		}
	});

	/* the annotated function with most samples on f (object, member,
	 * line: page string ids, each optional) over the range */
	function functionOf(f) {
		const best = new Float64Array(a.fns.length);
		for (let r = 0; r < a.addr.length; r++) {
			if (!sums.samples[r])
				continue;
			const fn = a.fns[a.rowFn[r]];
			if (f.line !== undefined && (a.line[r] < 0 || fn.lines[a.line[r]].id !== f.line))
				continue;
			let n = sums.samples[r];
			if (f.object !== undefined) {
				n = 0;
				for (const [key, c] of sums.access.get(r) || [])
					if (+key.split(",")[0] === f.object && (f.member === undefined || +key.split(",")[1] === f.member))
						n += c;
			}
			best[fn.i] += n;
		}
		let bi = -1;
		best.forEach((n, i) => { if (n > 0 && (bi < 0 || n > best[bi])) bi = i; });
		return bi;
	}

	function open(f) {
		if (!sums || !sums.rows)
			sums = annotSums(m, a, state.lo, state.hi, true);
		if (f.fn !== undefined)
			return setState({ annot: f });
		/* report's member of a scalar is its type, which annotate does not
		 * name: then the object alone, then its line */
		const tries = [f, { object: f.object, line: f.line }, { object: f.object }];
		for (const t of tries) {
			for (const k of Object.keys(t))
				if (t[k] === undefined)
					delete t[k];
			const fn = functionOf(t);
			if (fn >= 0)
				return setState({ annot: { ...t, fn } });
		}
		$("code-note").textContent = "No annotated function has samples on that in this range.";
	}

	function drawList() {
		list.textContent = "";
		const order = a.fns.map((f) => f.i).sort((x, y) => sums.fnPeriod[y] - sums.fnPeriod[x] || x - y);
		const frag = document.createDocumentFragment();
		for (const i of order) {
			const f = a.fns[i], r = el("div", "frow");
			r.dataset.fn = i;
			r.dataset.samples = sums.fnSamples[i];
			const name = el("span", "", f.name);
			name.title = f.name + " (" + f.binary + ")";
			r.append(name, el("span", "muted", f.binary.replace(/.*\//, "")),
				 el("span", "num", fmtCount(sums.fnSamples[i])),
				 el("span", "num", pct(sums.fnPeriod[i])));
			frag.appendChild(r);
		}
		list.appendChild(frag);
	}

	function pct(p) {
		return (sums.total ? 100 * p / sums.total : 0).toFixed(1) + "%";
	}

	/* the rows with samples in the bar's bucket: the bar's place in the code */
	function atBar(f) {
		const b = Math.floor(state.bar / m.bw), set = new Set();
		const [cnt] = annotCombos(a, b, b + 1);
		for (let k = 0; k < a.ncombos; k++)
			if (cnt[k] && a.kInsn[k] >= f.r0 && a.kInsn[k] < f.r1)
				set.add(a.kInsn[k]);
		return set;
	}

	function drawPane() {
		const sel = state.annot, f = a.fns[sel.fn];
		let maxP = 0;
		for (let r = f.r0; r < f.r1; r++)
			maxP = Math.max(maxP, sums.period[r]);
		$("annot-title").textContent = f.name;
		$("annot-title").title = f.binary;
		$("annot-note").textContent = f.binary + " · [0x" + f.start.toString(16) + "..0x" + f.end.toString(16) + ") · " +
			fmtCount(sums.fnSamples[f.i]) + " samples, " + pct(sums.fnPeriod[f.i]) + " · " +
			fmtTime(state.lo) + " – " + fmtTime(state.hi);
		$("annot-why").hidden = !f.why;
		$("annot-why").textContent = f.why;
		const bar = atBar(f);
		const lineSum = new Map();
		for (let r = f.r0; r < f.r1; r++)
			if (a.line[r] >= 0)
				lineSum.set(a.line[r], [(lineSum.get(a.line[r]) || [0, 0])[0] + sums.samples[r],
							(lineSum.get(a.line[r]) || [0, 0])[1] + sums.period[r]]);
		rowsBox.textContent = "";
		const frag = document.createDocumentFragment();
		let first = null;
		if (f.ranges.length) {
			/* straight code between taken branches, counted over the whole
			 * profile from the samples' branch stacks (not the time range) */
			const head = el("div", "arow arange");
			head.append(el("span", "num", "runs"), el("span", "num", "share"),
				    el("span", ""), el("span", ""),
				    el("span", "muted",
				       "hottest ranges of the branch stacks (whole profile)"));
			frag.appendChild(head);
			for (const g of f.ranges) {
				const e = el("div", "arow arange");
				e.dataset.start = g.start.toString(16);
				e.dataset.end = g.end.toString(16);
				e.dataset.runs = g.n;
				e.append(
				    el("span", "num", fmtCount(g.n)),
				    el("span", "num",
				       (a.rangesTotal ? 100 * g.n / a.rangesTotal : 0).toFixed(1) +
					   "%"),
				    el("span", ""), el("span", ""),
				    el("span", "src",
				       g.start.toString(16) + "-" + g.end.toString(16) + "  " +
					   g.lines + "  " + g.insns + " instructions" +
					   (g.loop ? "  (loop body)" : "")));
				frag.appendChild(e);
			}
		}
		for (let r = f.r0; r < f.r1; r++) {
			if (a.starts[r]) {
				const ln = f.lines[a.line[r]], ls = lineSum.get(a.line[r]) || [0, 0];
				const e = el("div", "arow aline");
				e.dataset.line = ln.id;
				e.dataset.samples = ls[0];
				const src = el("span", "src", ln.name + "  " + (ln.text !== null ? ln.text : ""));
				if (a.chain[r])
					src.append(el("span", "muted", "   [inlined: " + m.S[a.chain[r]] + "]"));
				src.title = ln.path + ":" + ln.number;
				e.append(el("span", "num", ls[0] ? fmtCount(ls[0]) : ""), el("span", "num", ls[0] ? pct(ls[1]) : ""),
					 el("span", ""), el("span", ""), src);
				if (sel.line === ln.id || (state.filter && state.filter.line === ln.id && state.filter.object === undefined))
					e.classList.add("hl"), first = first || e;
				frag.appendChild(e);
			}
			const n = sums.samples[r], h = maxP ? sums.period[r] / maxP : 0;
			const e = el("div", "arow ainsn");
			e.dataset.row = r;
			e.dataset.addr = a.addr[r].toString(16);
			e.dataset.samples = n;
			e.dataset.heat = h;
			const sw = el("span", "heat");
			if (n) {
				const c = heatRGB(h), t = heatRGB(h * 0.3);
				sw.style.background = "rgb(" + c.join(",") + ")";
				e.style.background = "rgb(" + t.join(",") + ")";
			}
			const data = n ? dataText(m, sums, r) : "";
			const dt = el("span", "dt", data);
			dt.title = data;
			e.append(el("span", "num", n ? fmtCount(n) : ""), el("span", "num", n ? pct(sums.period[r]) : ""),
				 el("span", "vm", n ? verdictMix(sums, r) : ""), sw,
				 el("span", "asm", a.addr[r].toString(16).padStart(6) + ": " + m.S[a.text[r]]), dt);
			if (bar.has(r))
				e.classList.add("atbar");
			if (r === selRow)
				e.classList.add("sel");
			if (n && sel.object !== undefined && [...(sums.access.get(r) || new Map()).keys()].some((k) =>
				+k.split(",")[0] === sel.object && (sel.member === undefined || +k.split(",")[1] === sel.member)))
				e.classList.add("hl"), first = first || e;
			frag.appendChild(e);
		}
		rowsBox.appendChild(frag);
		return first;
	}

	annotApi = { open, fnIndex: (name) => a.byName.has(name) ? a.byName.get(name).i : -1 };
	return {
		annot: a,
		open,
		render(c) {
			const key = state.lo + "," + state.hi;
			const isOpen = !!state.annot;
			const recount = key !== lastKey || (isOpen && !sums.rows);
			if (recount) {
				lastKey = key;
				sums = annotSums(m, a, state.lo, state.hi, isOpen);
			}
			if (c.annot) {
				document.querySelector(".split").hidden = isOpen;
				list.hidden = isOpen;
				pane.hidden = !isOpen;
				selRow = -1;
			}
			if (!isOpen) {
				if (recount || c.annot)
					drawList();
				if (wasOpen)
					$("grid-panel").scrollIntoView({ block: "nearest" });
				wasOpen = false;
				return;
			}
			wasOpen = true;
			if (!recount && !c.annot && !c.filter) {
				/* the bar alone moved (often, while dragged): its marks only */
				if (c.bar) {
					const bar = atBar(a.fns[state.annot.fn]);
					for (const e of rowsBox.querySelectorAll(".ainsn"))
						e.classList.toggle("atbar", bar.has(+e.dataset.row));
				}
			} else {
				const first = drawPane();
				if (c.annot) {
					const hot = first || [...rowsBox.querySelectorAll(".ainsn")].reduce((b, x) =>
						!b || +x.dataset.samples > +b.dataset.samples ? x : b, null);
					$("code-panel").scrollIntoView({ block: "start" });
					if (hot)
						rowsBox.scrollTop = Math.max(0, hot.offsetTop - rowsBox.clientHeight / 2);
				}
			}
		},
	};
}
