/* Starts the page: reads the data, builds the panels, wires the controls,
 * then marks "dp-ready" (performance.mark) once everything is drawn. */

/* " (page-faults CPU 0 1,490)": where the kernel dropped samples */
function lostWhere(by) {
	if (!by || !by.length)
		return "";
	return " (" + by.map((l) => (l.event || "an unknown event") +
		(l.cpu === null ? "" : " CPU " + l.cpu) + " " + fmtCount(l.count)).join(", ") + ")";
}

function main() {
	const d = JSON.parse($("dp-data").textContent);
	const m = loadModel(d);
	const p = d.profile;

	document.title = "dataprof view · " + p.path;
	$("title").textContent = p.path;
	$("summary").textContent = [
		fmtCount(m.samples) + " samples" + (p.samples_read !== p.samples ? " (of " + fmtCount(p.samples_read) + ")" : ""),
		d.events.map((e) => e.name).join(", "),
		fmtTime(m.full[1] - m.full[0]),
		p.lost ? p.lost + " lost" + lostWhere(p.lost_by) : "",
		p.truncated ? "the profile was cut short" : "",
		p.cmdline ? p.cmdline.replace(/^.*? -- /, "") : "",
	].filter(Boolean).join(" · ");
	$("summary").title = p.cmdline || "";
	if (!m.samples) {
		const e = $("empty");
		e.hidden = false;
		e.textContent = "This profile has no samples" + (p.samples_read ? " that pass the filters" : "") +
			": record one with dataprof record -e cpu-clock -- PROGRAM (docs/record.md).";
		$("top").after(e);
	}

	full = m.full;
	state.lo = full[0];
	state.hi = full[1];
	state.bar = m.overlap ? (m.overlap[0] + m.overlap[1]) / 2 : (full[0] + full[1]) / 2;

	const sel = $("color-by");
	for (const a of ["object", "member", "function", "line", "level", "verdict", "site", "region", "event"]) {
		const o = el("option", "", a);
		o.value = a;
		sel.appendChild(o);
	}
	sel.value = state.colorBy;
	sel.addEventListener("change", () => setState({ colorBy: sel.value }));
	if (m.cpus.length) {
		$("cpu-toggle").hidden = false;
		$("cpu-lanes").addEventListener("change", (e) => setState({ cpuLanes: e.target.checked }));
	}
	$("zoom-in").addEventListener("click", () => zoomAroundBar(0.5));
	$("zoom-out").addEventListener("click", () => zoomAroundBar(2));
	$("zoom-reset").addEventListener("click", resetRange);
	$("filter").addEventListener("click", () => setState({ filter: null }));

	const annot = Annotate(m);
	const grid = Grid(m);
	views.push(Ruler(), Graph(m), Lanes(m), grid, DataView(m), annot);
	window.addEventListener("resize", () => {
		changed.resize = true;
		setState({});
	});
	document.addEventListener("keydown", (e) => {
		if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" || state.annot)
			return;
		const s = grid.selected();
		if (e.key === "ArrowDown" || e.key === "ArrowRight" || e.key === "ArrowUp" || e.key === "ArrowLeft") {
			const r = s + (e.key === "ArrowDown" || e.key === "ArrowRight" ? 1 : -1);
			if (r >= 0 && r < m.rowTime.length)
				setState({ bar: m.rowTime[r] });
			e.preventDefault();
		} else if (e.key === "+" || e.key === "=") {
			zoomAroundBar(0.5);
		} else if (e.key === "-") {
			zoomAroundBar(2);
		} else if (e.key === "0") {
			resetRange();
		}
	});

	/* the first drawing, at once */
	changed = { lo: true, hi: true, bar: true, resize: true, colorBy: true, filter: true, annot: true };
	flush();
	window.dpView = {
		model: m, state, setState, xOf, tOf, plotWidth, zoomAroundBar,
		selectedRow: () => grid.selected(),
		rowTime: (r) => m.rowTime[r],
		annot: annot.annot, openAnnot: annot.open,
		flushTimes, viewTimes,
	};
	performance.mark("dp-ready");
	document.body.dataset.ready = "1";
}

try {
	main();
} catch (e) {
	const n = document.createElement("pre");
	n.className = "note";
	n.textContent = "dataprof view could not draw this page: " + e.message;
	document.body.prepend(n);
	throw e;
}
