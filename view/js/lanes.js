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

	/* Per pixel column: the samples of each colour class. The cells are
	 * summed per bucket first, then each bucket goes to its pixel (or is
	 * spread over its pixels): the pixel arithmetic is per bucket, not per
	 * cell. */
	let scratch = new Float32Array(0);
	function sums(l, W, cls, pass) {
		const K = PALETTE.length + 1, acc = new Float32Array(W * K), tot = new Float32Array(W);
		const spread = new Uint8Array(W), perPx = (state.hi - state.lo) / W;
		const [b0, b1] = bucketRange(m, state.lo, state.hi);
		const [i0, i1] = laneCells(m, l, b0, b1), nbr = Math.max(0, b1 - b0);
		if (scratch.length < nbr * (K + 1))
			scratch = new Float32Array(nbr * (K + 1));
		const bacc = scratch;
		bacc.fill(0, 0, nbr * (K + 1));
		const C = m.cCombo, B = m.cBucket, N = m.cCount, kc = cls.cls;
		for (let i = i0; i < i1; i++) {
			const c = C[i];
			if (pass[c]) {
				const o = (B[i] - b0) * (K + 1);
				bacc[o + kc[c]] += N[i];
				bacc[o + K] += N[i];
			}
		}
		let wide = false;
		const bwPx = m.bw / perPx;
		for (let bi = 0; bi < nbr; bi++) {
			const o = bi * (K + 1), n = bacc[o + K];
			if (!n)
				continue;
			const x0 = ((b0 + bi) * m.bw - state.lo) / perPx, x1 = x0 + bwPx;
			if (bwPx <= 1) {
				const px = Math.floor(x0 + bwPx / 2);
				if (px >= 0 && px < W) {
					for (let k = 0; k < K; k++)
						acc[px * K + k] += bacc[o + k];
					tot[px] += n;
				}
				continue;
			}
			wide = true;
			for (let px = Math.max(0, Math.floor(x0)); px < Math.min(W, Math.ceil(x1)); px++) {
				const f = (Math.min(px + 1, x1) - Math.max(px, x0)) / bwPx;
				for (let k = 0; k < K; k++)
					acc[px * K + k] += bacc[o + k] * f;
				tot[px] += n * f;
				spread[px] = 1;
			}
		}
		let max = 0;
		for (let px = 0; px < W; px++)
			max = Math.max(max, tot[px]);
		return { acc, tot, spread, max, wide };
	}

	/* Colours as little-endian RGBA words for ImageData; pale: at 55% on white. */
	const rgba = (hex, alpha) => {
		const v = parseInt(hex.slice(1), 16), mix = (c) => Math.round(c * alpha + 255 * (1 - alpha));
		return (255 << 24 | mix(v & 255) << 16 | mix((v >> 8) & 255) << 8 | mix(v >> 16)) >>> 0;
	};
	const solid = PALETTE.concat([OTHER_COLOR]).map((c) => rgba(c, 1));
	const pale = PALETTE.concat([OTHER_COLOR]).map((c) => rgba(c, 0.55));
	const OUTLINE = rgba("#1d2330", 0.8);

	/* Pixels are written into an ImageData: one stacked column per CSS
	 * pixel would otherwise be many thousand fillRect calls a lane. */
	function draw(r, s, W, top) {
		const dpr = window.devicePixelRatio || 1, K = PALETTE.length + 1, cv = r.canvas;
		const Wd = Math.round(W * dpr), Hd = Math.round(LANE_H * dpr);
		if (cv.width !== Wd || cv.height !== Hd) {
			cv.width = Wd;
			cv.height = Hd;
			cv.style.height = LANE_H + "px";
		}
		const g = cv.getContext("2d");
		if (!r.img || r.img.width !== Wd || r.img.height !== Hd)
			r.img = g.createImageData(Wd, Hd);
		const px32 = new Uint32Array(r.img.data.buffer);
		px32.fill(0);
		const usable = Hd - 4 * dpr;
		for (let dx = 0; dx < Wd; dx++) {
			const px = Math.min(W - 1, Math.floor(dx / dpr)), n = s.tot[px];
			if (!(n > 0))
				continue;
			const h = Math.max(1.5 * dpr, n / top * usable), colors = s.spread[px] ? pale : solid;
			let y = Hd, acc = 0;
			for (let k = 0; k < K; k++) {
				const v = s.acc[px * K + k];
				if (!(v > 0))
					continue;
				acc += v;
				const yTop = Math.round(Hd - acc / n * h);
				for (let yy = Math.min(y, Hd) - 1; yy >= yTop && yy >= 0; yy--)
					px32[yy * Wd + dx] = colors[k];
				y = Math.min(y, yTop);
			}
			/* the outline: this pixel is the sum of several samples */
			if (!s.spread[px] && n > 1 && y - 1 >= 0)
				px32[(y - 1) * Wd + dx] = OUTLINE;
		}
		g.putImageData(r.img, 0, 0);
		g.setTransform(dpr, 0, 0, dpr, 0, 0);
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
			g.fillRect(bx - 1, 0, 2, LANE_H);
		}
		r.badge.textContent = s.wide ? "spread" : s.max > 1 ? "≤" + fmtCount(s.max) + "/px" : s.max ? "1/px" : "";
		r.badge.title = s.wide ? "a time bucket (" + fmtTime(m.bw) + ") is wider than a pixel here: its samples are spread over its pixels"
			: "the most samples one pixel stands for in this lane";
	}

	/* Lanes out of sight are drawn when scrolled into it. */
	function drawInSight(W, all) {
		const view = box.getBoundingClientRect();
		for (const r of rows) {
			if (r.row.hidden)
				continue;
			if (all)
				r.dirty = true;
			if (!r.dirty)
				continue;
			const b = r.row.getBoundingClientRect();
			if (b.bottom < view.top || b.top > view.bottom)
				continue;
			draw(r, cache.sums.get(r.l.i), W, cache.top || 1);
			r.dirty = false;
		}
	}
	box.addEventListener("scroll", () => {
		if (cache)
			drawInSight(plotWidth(), false);
	});

	return {
		render(c) {
			const W = plotWidth();
			const visible = rows.filter((r) => r.l.kind === "thread" || state.cpuLanes);
			if (c.cpuLanes || !cache)
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
				if (!cache || cache.classes !== cls)
					legend(cls);
				cache = { key, sums: all, top, classes: cls };
				const per = (state.hi - state.lo) / W;
				$("lanes-note").textContent = m.threads.length + " threads" +
					(m.cpus.length ? ", " + m.cpus.length + " CPUs" : "") + " · 1 px = " + fmtTime(per) +
					" · buckets of " + fmtTime(m.bw) + " · tallest column " +
					(top < 10 ? top.toFixed(1) : fmtCount(top)) + " samples";
			}
			drawInSight(W, true);
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
