/* Lanes: one per thread (and per CPU on request), the samples' density over
 * the time range, each column coloured by the mix of the chosen attribute's
 * values. A column that stands for several samples shows their sum (its
 * height) and mix (its colours) and is outlined on top; where a bucket is
 * wider than a pixel its samples are spread over its pixels, drawn paler.
 * Click a lane to move the bar there, drag to pan, wheel to zoom around the
 * bar. */

const LANE_H = 28;

function Lanes(m) {
	const box = $("lanes"), rows = [];
	let cache = null; /* the sums of the last range, reused when only the bar moves */

	for (const l of m.lanes) {
		const row = el("div", "row lane"), gut = el("div", "gutter"), plot = el("div", "plot");
		const badge = el("div", "rgutter"), canvas = el("canvas");
		gut.textContent = l.kind === "cpu" ? l.name : l.name + " " + l.tid;
		gut.title = l.kind === "cpu" ? l.name + ": " + l.total + " samples"
			: "thread " + l.name + ", pid " + l.pid + ", tid " + l.tid + ": " + l.total + " samples";
		plot.appendChild(canvas);
		row.append(gut, plot, badge);
		row.dataset.lane = l.i;
		box.appendChild(row);
		rows.push({ l, row, canvas, badge });
		bindMouse(l, canvas);
	}
	if (!m.lanes.length)
		box.appendChild(el("div", "note", "No samples to draw."));
	$("lanes-note").textContent = m.threads.length + " threads" +
		(m.cpus.length ? ", " + m.cpus.length + " CPUs" : "");

	function bindMouse(l, canvas) {
		let down = null;
		canvas.addEventListener("pointerdown", (e) => {
			down = { x: e.clientX, lo: state.lo, hi: state.hi, moved: false };
			canvas.setPointerCapture(e.pointerId);
		});
		canvas.addEventListener("pointermove", (e) => {
			if (down) {
				const dx = e.clientX - down.x;
				if (Math.abs(dx) > 3)
					down.moved = true;
				if (down.moved) {
					const dt = dx / plotWidth() * (down.hi - down.lo);
					const [lo, hi] = clampRange(down.lo - dt, down.hi - dt);
					setState({ lo, hi });
				}
				return;
			}
			tip(e, l, canvas);
		});
		canvas.addEventListener("pointerup", (e) => {
			if (down && !down.moved)
				setState({ bar: tOf(e.clientX - canvas.getBoundingClientRect().left) });
			down = null;
		});
		canvas.addEventListener("pointerleave", () => { $("tip").hidden = true; });
		canvas.addEventListener("wheel", (e) => {
			e.preventDefault();
			if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
				const dt = e.deltaX / plotWidth() * (state.hi - state.lo);
				const [lo, hi] = clampRange(state.lo + dt, state.hi + dt);
				setState({ lo, hi });
			} else {
				zoomAroundBar(e.deltaY > 0 ? 1.25 : 0.8);
			}
		}, { passive: false });
	}

	function tip(e, l, canvas) {
		const t = $("tip"), x = Math.floor(e.clientX - canvas.getBoundingClientRect().left);
		if (!cache || !cache.sums.has(l.i)) {
			t.hidden = true;
			return;
		}
		const s = cache.sums.get(l.i), K = PALETTE.length + 1, n = s.tot[x] || 0;
		let text = fmtTime(tOf(x)) + "  " + (l.kind === "cpu" ? l.name : l.name + " " + l.tid) +
			"\n" + (n ? (n < 10 && s.spread[x] ? n.toFixed(2) : fmtCount(n)) : "no") + " samples in this pixel";
		const cls = cache.classes;
		for (let k = 0; k < K && n; k++) {
			const v = s.acc[x * K + k];
			if (v > 0)
				text += "\n  " + (100 * v / n).toFixed(0).padStart(3) + "%  " +
					(k < cls.values.length ? cls.values[k].name : "other");
		}
		t.textContent = text;
		t.hidden = false;
		t.style.left = e.clientX + 12 + "px";
		t.style.top = e.clientY + 12 + "px";
	}

	/* Per pixel column: the samples of each colour class. */
	function sums(l, W, cls, pass) {
		const K = PALETTE.length + 1, acc = new Float32Array(W * K), tot = new Float32Array(W);
		const spread = new Uint8Array(W), perPx = (state.hi - state.lo) / W;
		const [b0, b1] = bucketRange(m, state.lo, state.hi);
		const [i0, i1] = laneCells(m, l, b0, b1);
		let wide = false;
		for (let i = i0; i < i1; i++) {
			const c = m.cCombo[i];
			if (!pass[c])
				continue;
			const n = m.cCount[i], k = cls.cls[c];
			const x0 = (m.cBucket[i] * m.bw - state.lo) / perPx, x1 = x0 + m.bw / perPx;
			if (x1 - x0 <= 1) {
				const px = Math.floor((x0 + x1) / 2);
				if (px >= 0 && px < W) {
					acc[px * K + k] += n;
					tot[px] += n;
				}
				continue;
			}
			wide = true;
			for (let px = Math.max(0, Math.floor(x0)); px < Math.min(W, Math.ceil(x1)); px++) {
				const f = (Math.min(px + 1, x1) - Math.max(px, x0)) / (x1 - x0);
				acc[px * K + k] += n * f;
				tot[px] += n * f;
				spread[px] = 1;
			}
		}
		let max = 0;
		for (let px = 0; px < W; px++)
			max = Math.max(max, tot[px]);
		return { acc, tot, spread, max, wide };
	}

	function draw(r, s, W, top) {
		const dpr = window.devicePixelRatio || 1, H = LANE_H, K = PALETTE.length + 1;
		const cv = r.canvas;
		if (cv.width !== Math.round(W * dpr) || cv.height !== H * dpr) {
			cv.width = Math.round(W * dpr);
			cv.height = H * dpr;
			cv.style.height = H + "px";
		}
		const g = cv.getContext("2d");
		g.setTransform(dpr, 0, 0, dpr, 0, 0);
		g.clearRect(0, 0, W, H);
		const usable = H - 4;
		for (let px = 0; px < W; px++) {
			const n = s.tot[px];
			if (!(n > 0))
				continue;
			const h = Math.max(1.5, n / top * usable);
			let y = H;
			g.globalAlpha = s.spread[px] ? 0.55 : 1;
			for (let k = 0; k < K; k++) {
				const v = s.acc[px * K + k];
				if (!(v > 0))
					continue;
				const sh = v / n * h;
				g.fillStyle = k < PALETTE.length ? PALETTE[k] : OTHER_COLOR;
				g.fillRect(px, y - sh, 1, sh);
				y -= sh;
			}
			/* the outline: this pixel is the sum of several samples */
			if (!s.spread[px] && n > 1) {
				g.globalAlpha = 0.8;
				g.fillStyle = "#1d2330";
				g.fillRect(px, H - h - 1, 1, 1);
			}
		}
		g.globalAlpha = 1;
		/* the thread's code marks: small diamonds along the top */
		g.fillStyle = "#7a3e00";
		for (const mk of m.laneMarks[r.l.i]) {
			const x = xOf(mk.t);
			if (x < -4 || x > W + 4)
				continue;
			g.beginPath();
			g.moveTo(x, 0);
			g.lineTo(x + 3.5, 3.5);
			g.lineTo(x, 7);
			g.lineTo(x - 3.5, 3.5);
			g.fill();
		}
		const bx = xOf(state.bar);
		if (bx >= 0 && bx <= W) {
			g.fillStyle = BAR_COLOR;
			g.fillRect(bx - 1, 0, 2, H);
		}
		r.badge.textContent = s.wide ? "spread" : s.max > 1 ? "≤" + fmtCount(s.max) + "/px" : s.max ? "1/px" : "";
		r.badge.title = s.wide ? "a time bucket (" + fmtTime(m.bw) + ") is wider than a pixel here: its samples are spread over its pixels"
			: "the most samples one pixel stands for in this lane";
	}

	return {
		render(c) {
			const W = plotWidth();
			const visible = rows.filter((r) => r.l.kind === "thread" || state.cpuLanes);
			for (const r of rows)
				r.row.hidden = !(r.l.kind === "thread" || state.cpuLanes);
			const key = [state.lo, state.hi, W, state.colorBy, JSON.stringify(state.filter), state.cpuLanes].join();
			if (!cache || cache.key !== key) {
				const cls = colorClasses(m, state.colorBy), pass = filterPass(m, state.filter);
				const all = new Map();
				let top = 0;
				for (const r of visible) {
					const s = sums(r.l, W, cls, pass);
					all.set(r.l.i, s);
					top = Math.max(top, s.max);
				}
				cache = { key, sums: all, top, classes: cls };
				legend(cls);
				const per = (state.hi - state.lo) / W;
				$("lanes-note").textContent = m.threads.length + " threads" +
					(m.cpus.length ? ", " + m.cpus.length + " CPUs" : "") + " · 1 px = " + fmtTime(per) +
					" · buckets of " + fmtTime(m.bw) + " · tallest column " +
					(top < 10 ? top.toFixed(1) : fmtCount(top)) + " samples";
			}
			for (const r of visible)
				draw(r, cache.sums.get(r.l.i), W, cache.top || 1);
		},
	};
}

function legend(cls) {
	const box = $("legend");
	box.textContent = "";
	cls.values.forEach((v, k) => {
		const item = el("span", "");
		const sw = el("span", "sw");
		sw.style.background = PALETTE[k];
		item.append(sw, document.createTextNode(v.name));
		box.appendChild(item);
	});
	if (cls.other) {
		const item = el("span", ""), sw = el("span", "sw");
		sw.style.background = OTHER_COLOR;
		item.append(sw, document.createTextNode("other"));
		box.appendChild(item);
	}
	const hint = el("span", "muted", "outlined top: several samples in one pixel · \u25c6 code mark");
	box.appendChild(hint);
}
