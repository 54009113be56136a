/* The time axis above the panels, with the bar's handle: drag it (or click
 * anywhere on the axis) to move the bar. */

function niceStep(span, n) {
	const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
	for (const k of [1, 2, 5, 10])
		if (raw <= k * p)
			return k * p;
	return 10 * p;
}

function Ruler() {
	const box = $("ruler"), canvas = box.querySelector("canvas"), handle = $("bar-handle");
	let drag = false;

	function toBar(e) {
		const r = box.getBoundingClientRect();
		const x = Math.min(Math.max(e.clientX - r.left, 0), r.width);
		setState({ bar: tOf(x) });
	}
	box.addEventListener("pointerdown", (e) => {
		drag = true;
		box.setPointerCapture(e.pointerId);
		toBar(e);
		e.preventDefault();
	});
	box.addEventListener("pointermove", (e) => {
		if (drag)
			toBar(e);
	});
	box.addEventListener("pointerup", () => { drag = false; });

	return {
		render(c) {
			const W = plotWidth(), H = 28, dpr = window.devicePixelRatio || 1;
			handle.style.left = xOf(state.bar) + "px";
			handle.dataset.t = state.bar;
			$("range-label").textContent = fmtTime(state.lo) + " – " + fmtTime(state.hi);
			if (!c.lo && !c.hi && !c.resize && canvas.width === Math.round(W * dpr))
				return;
			canvas.width = Math.round(W * dpr);
			canvas.height = H * dpr;
			canvas.style.height = H + "px";
			const g = canvas.getContext("2d");
			g.setTransform(dpr, 0, 0, dpr, 0, 0);
			g.clearRect(0, 0, W, H);
			g.fillStyle = "#667";
			g.strokeStyle = "#b8bec8";
			g.font = "11px system-ui, sans-serif";
			const step = niceStep(state.hi - state.lo, Math.max(2, W / 110));
			for (let t = Math.ceil(state.lo / step) * step; t <= state.hi; t += step) {
				const x = Math.round(xOf(t)) + 0.5;
				g.beginPath();
				g.moveTo(x, H - 8);
				g.lineTo(x, H);
				g.stroke();
				g.fillText(fmtTime(t), x + 3, H - 10);
			}
			g.beginPath();
			g.moveTo(0, H - 0.5);
			g.lineTo(W, H - 0.5);
			g.stroke();
		},
	};
}
