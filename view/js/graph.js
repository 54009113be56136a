/* The system graph: one uPlot chart per counter series (rates for
 * counters, levels for gauges), all on the shared time range. Drag across a
 * chart to zoom to that range (rubber band); double-click to see the whole
 * profile; drag the red bar to move it. */

const BAR_COLOR = "#d62728";

function Graph(m) {
	const box = $("graphs"), c = m.d.counters, charts = [];

	if (!c) {
		box.appendChild(noteEl("No system counters in this profile: record with ",
				       "dataprof record --counters default", " to draw them."));
		return { render() {} };
	}
	if (!c.series.length) {
		box.appendChild(noteEl("None of the default counters is in this profile: choose with ",
				       "dataprof view --counters GLOBS", "."));
		return { render() {} };
	}
	$("graph-note").textContent = c.series.length + " counters, " + c.times.length + " points";
	const xs = Float64Array.from(c.times);

	c.series.forEach((s, k) => {
		const row = el("div", "row graph-row"), gut = el("div", "gutter"), cbox = el("div", "plot");
		const color = PALETTE[k % PALETTE.length];
		gut.appendChild(el("span", "", s.name.replace(/^proc\//, "")));
		const val = el("span", "v", "");
		gut.appendChild(val);
		gut.title = s.name + " (" + (s.kind === "counter" ? "rate per second" : "level") + ", " + s.unit + ")";
		row.appendChild(gut);
		row.appendChild(cbox);
		box.appendChild(row);
		const ys = s.values.map((v) => (v === null ? null : v));
		const opts = {
			width: plotWidth() + cssVar("--rgutter"),
			height: 56,
			legend: { show: false },
			padding: [8, 0, 8, 0],
			scales: { x: { time: false, auto: false } },
			axes: [
				{ show: false },
				{
					side: 1, size: cssVar("--rgutter"), gap: 3, font: "10px system-ui, sans-serif",
					stroke: "#667", ticks: { show: false }, grid: { stroke: "#eef0f3", width: 1 },
					values: (u, vals) => vals.map((v) => fmtAxis(v, s.unit, s.kind)),
					splits: (u, axis, min, max) => [min, max],
				},
			],
			series: [{}, { stroke: color, fill: color + "22", width: 1.25, points: { show: false } }],
			cursor: {
				drag: { x: true, y: false, setScale: false },
				points: { show: false },
				y: false,
				bind: { dblclick: () => () => null },
			},
			hooks: {
				setSelect: [(u) => {
					if (u.select.width > 3) {
						const lo = u.posToVal(u.select.left, "x");
						const hi = u.posToVal(u.select.left + u.select.width, "x");
						setRange(lo, hi);
					}
					u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
				}],
				draw: [(u) => {
					const x = u.valToPos(state.bar, "x", true);
					if (x < u.bbox.left || x > u.bbox.left + u.bbox.width)
						return;
					const g = u.ctx;
					g.save();
					g.strokeStyle = BAR_COLOR;
					g.lineWidth = 2 * (window.devicePixelRatio || 1);
					g.beginPath();
					g.moveTo(x, u.bbox.top);
					g.lineTo(x, u.bbox.top + u.bbox.height);
					g.stroke();
					g.restore();
				}],
			},
		};
		const u = new uPlot(opts, [xs, ys], cbox);
		u.root.addEventListener("dblclick", () => resetRange());
		grabBar(u);
		charts.push({ u, s, val });
	});

	/* A press within a few pixels of the bar drags the bar instead of
	 * starting a rubber band (capture phase: before uPlot sees it). */
	function grabBar(u) {
		u.root.addEventListener("mousedown", (e) => {
			const r = u.over.getBoundingClientRect();
			if (Math.abs(e.clientX - r.left - xOf(state.bar)) > 5)
				return;
			e.stopPropagation();
			e.preventDefault();
			const move = (ev) => setState({ bar: tOf(Math.min(Math.max(ev.clientX - r.left, 0), r.width)) });
			const up = () => {
				document.removeEventListener("mousemove", move);
				document.removeEventListener("mouseup", up);
			};
			document.addEventListener("mousemove", move);
			document.addEventListener("mouseup", up);
		}, true);
	}

	return {
		render(ch) {
			for (const { u, s, val } of charts) {
				if (ch.resize)
					u.setSize({ width: plotWidth() + cssVar("--rgutter"), height: 56 });
				if (ch.lo || ch.hi || ch.resize || !u._dpInit) {
					u._dpInit = true;
					u.setScale("x", { min: state.lo, max: state.hi });
				} else if (ch.bar) {
					u.redraw(false, false);
				}
				/* the value of the last point at or before the bar */
				let i = lowerBound(xs, state.bar + 1) - 1;
				val.textContent = i >= 0 ? fmtValue(s.values[i], s.unit, s.kind) : "–";
			}
		},
	};
}

function cssVar(name) {
	return parseFloat(getComputedStyle(document.documentElement).getPropertyValue(name)) || 0;
}

function noteEl(before, code, after) {
	const n = el("div", "note", before);
	n.appendChild(el("code", "", code));
	n.appendChild(document.createTextNode(after));
	return n;
}
