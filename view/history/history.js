/* dataprof history show --html: one chart per key, its value at each
 * commit (oldest first); a red point where it changed beyond noise from the
 * commit before. A point, or the link under the chart, leads to that
 * step's section: its diff table and the command that shows it again.
 * Marks "dp-ready" (performance.mark, body[data-ready]) once drawn. Shares
 * the view page's js/util.js ($, el), in one scope with it. */

const UP = "#d62728", LINE = "#1f77b4";
const d = JSON.parse($("dp-history").textContent);

/* 3 significant digits with k, M, G, T, as the text output */
function fmt(v) {
	if (v === null || v === undefined)
		return "-";
	const a = Math.abs(v), units = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
	for (const [s, u] of units)
		if (a >= s)
			return +(v / s).toPrecision(3) + u;
	return String(+v.toPrecision(3));
}

const short = (sha) => sha.length > 10 ? sha.slice(0, 8) : sha;
const stepOf = new Map(d.steps.map((s) => [s.index, s]));
const charts = new Map(); /* key -> its uPlot, for the tests (window.dpHistory) */
const stepId = (i) => "step-" + i;

function header() {
	$("title").textContent = d.program + ", event " + d.event;
	$("summary").textContent = d.metric + " " + d.per_text + ", by " + d.by + "; " +
		d.commits.length + " commit" + (d.commits.length === 1 ? "" : "s") +
		(d.branch ? " of " + d.branch : "") + ", oldest first; beyond noise: " +
		d.confidence * 100 + "% intervals shared among the keys";
	$("keys-note").textContent = d.keys.length + " keys";
	$("steps-note").textContent = d.steps.length ? d.steps.length + " step" +
		(d.steps.length === 1 ? "" : "s") : "none";
}

/* a key without samples in a commit's runs (null) had none: 0 */
const value = (k, i) => (k.values[i] === null ? 0 : k.values[i]);

function chart(k, box) {
	const n = d.commits.length, xs = d.commits.map((c, i) => i);
	const ys = xs.map((i) => value(k, i));
	const sig = xs.map((i) => (k.beyond_noise[i] ? ys[i] : null));
	const opts = {
		width: Math.max(380, box.clientWidth - 12), height: 150,
		legend: { show: false },
		scales: { x: { time: false, range: [-0.5, n - 0.5] } },
		axes: [
			{ size: 28, font: "10px system-ui, sans-serif", stroke: "#667",
			  grid: { show: false }, splits: () => xs,
			  values: (u, vals) => vals.map((i) => (d.commits[i] ? short(d.commits[i].sha) : "")) },
			{ size: 46, font: "10px system-ui, sans-serif", stroke: "#667",
			  grid: { stroke: "#eef0f3" }, values: (u, vals) => vals.map(fmt) },
		],
		series: [
			{},
			{ stroke: LINE, width: 1.5, points: { show: true, size: 5, fill: LINE } },
			{ stroke: UP, width: 0, paths: () => null, points: { show: true, size: 11, fill: UP } },
		],
		cursor: { drag: { x: false, y: false }, y: false },
	};
	const u = new uPlot(opts, [xs, ys, sig], box);
	/* a click on a marked commit goes to its step */
	u.over.addEventListener("click", () => {
		const i = u.cursor.idx;
		if (i !== null && i !== undefined && k.beyond_noise[i] && stepOf.has(i))
			location.hash = "#" + stepId(i);
	});
	return u;
}

function keys() {
	const box = $("charts");
	for (const k of d.keys) {
		const card = el("section", "key");
		card.dataset.key = k.key;
		card.appendChild(el("h3", "", k.key + (k.gone ? " (gone)" : "")));
		const plot = el("div", "plot");
		card.appendChild(plot);
		const marks = el("ul", "marks");
		k.beyond_noise.forEach((s, i) => {
			if (!s || i === 0)
				return;
			const prev = value(k, i - 1), v = value(k, i), up = v > prev;
			const li = el("li", "");
			li.appendChild(el("span", up ? "up" : "down", up ? "\u25b2 " : "\u25bc "));
			li.appendChild(document.createTextNode(fmt(prev) + " \u2192 " + fmt(v) + " at "));
			const a = el("a", "", short(d.commits[i].sha));
			a.href = "#" + stepId(i);
			a.dataset.commit = d.commits[i].sha;
			li.appendChild(a);
			li.appendChild(document.createTextNode(" (from " + short(d.commits[i - 1].sha) + ")"));
			marks.appendChild(li);
		});
		card.appendChild(marks);
		box.appendChild(card);
		charts.set(k.key, chart(k, plot));
	}
	if (!d.keys.length)
		box.appendChild(el("p", "note", "No keys in these commits."));
}

function steps() {
	const box = $("steps");
	if (!d.steps.length)
		box.appendChild(el("p", "note", "No change beyond noise from one commit to the next."));
	for (const s of d.steps) {
		const sec = el("section", "step");
		sec.id = stepId(s.index);
		sec.dataset.base = s.base;
		sec.dataset.new = s.new;
		sec.appendChild(el("h3", "", short(s.base) + " \u2192 " + short(s.new) + ": " +
			s.significant + " change" + (s.significant === 1 ? "" : "s") + " beyond noise"));
		sec.appendChild(el("pre", "cmd", s.command));
		const t = el("table"), head = el("tr");
		for (const h of [d.by, "base", "new", "change", "interval"])
			head.appendChild(el("th", "", h));
		t.appendChild(head);
		for (const r of s.rows) {
			const tr = el("tr", r.direction);
			tr.appendChild(el("td", "", r.key));
			tr.appendChild(el("td", "", fmt(r.base)));
			tr.appendChild(el("td", "", fmt(r.new)));
			tr.appendChild(el("td", r.direction, (r.direction === "up" ? "\u25b2 " : "\u25bc ") + r.change));
			tr.appendChild(el("td", "", r.interval));
			t.appendChild(tr);
		}
		sec.appendChild(t);
		box.appendChild(sec);
	}
}

header();
keys();
steps();
window.dpHistory = { data: d, charts };
if (location.hash && document.querySelector(location.hash))
	document.querySelector(location.hash).scrollIntoView();
performance.mark("dp-ready");
document.body.dataset.ready = "1";
