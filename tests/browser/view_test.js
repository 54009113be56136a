// The view page in a real headless Chromium (Debian's, driven by
// playwright-core; no browser is downloaded), as a person would use it:
//   node view_test.js OUTDIR FULL.html [EMPTY.html] [PLAIN.html] [DATAPROF] [RANGES.html]
// FULL has samples, counters and marks; EMPTY no samples; PLAIN no counters
// and no marks. With DATAPROF (the binary), the annotate pane against
// `dataprof annotate --json` on the pages' profiles (FULL.dprof, PLAIN.dprof
// beside them): its function list, the rows of the function opened by a
// click, a time range's recount against `annotate --time`, the heat colours
// in a screenshot, opening from the grid and the data view, closing. RANGES
// (test_branch_stacks' page, samples with branch stacks): each function's
// hottest ranges head its listing, as the page's data holds them.
// Checks: the page loads offline with no console error and no
// request; dragging the bar selects the grid row nearest its time (by brute
// force over the page's own events); clicking a row moves the bar there;
// zooming keeps the bar's time and place; a rubber band sets the range;
// clicking a data row filters the lanes; a screenshot is not blank. Prints
// one line per check, then "N passed, N failed"; exit 1 on a failure.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { check, openPage, inChromium } = require("./lib.js");

const [outDir, fullPage, emptyPage, plainPage, dataprof, rangesPage] = process.argv.slice(2);

// the page must need nothing beyond its own file
const open = (ctx, file) => openPage(ctx, file, 1400);

const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const st = (page) => page.evaluate(() => ({ ...window.dpView.state, W: window.dpView.plotWidth() }));

// The row the page should select for time t, by brute force over its own
// events: the nearest sample group or mark (earlier on a tie), none outside
// the overlap of the kinds.
function expectedRowTime(model, t) {
	const ov = model.overlap;
	if (!ov || t < ov[0] || t > ov[1])
		return null;
	let best = null;
	for (const x of [...model.sTimes, ...model.mTimes]) {
		const d = Math.abs(x - t);
		if (best === null || d < Math.abs(best - t) || (d === Math.abs(best - t) && x < best))
			best = x;
	}
	return best;
}

async function fullChecks(ctx) {
	const { page, errors, requests, ready } = await open(ctx, fullPage);
	check("full page: loads, marks ready", ready > 0, `ready at ${ready.toFixed(0)} ms`);
	console.log(`render: dp-ready ${ready.toFixed(1)} ms after navigation start`);
	const model = await page.evaluate(() => {
		const m = window.dpView.model;
		return { sTimes: Array.from(m.sTimes), mTimes: Array.from(m.mTimes), overlap: m.overlap,
			 marks: m.marks.length, counters: !!m.d.counters, samples: m.samples };
	});
	check("full page: has samples, marks, counters", model.samples > 0 && model.marks > 0 && model.counters,
	      `${model.samples} samples, ${model.marks} marks`);

	// drag the bar's handle to 30% and then 70% of the plot
	const ruler = await page.locator("#ruler").boundingBox();
	for (const frac of [0.3, 0.7]) {
		const h = await page.locator("#bar-handle").boundingBox();
		const tx = ruler.x + ruler.width * frac;
		await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
		await page.mouse.down();
		await page.mouse.move(tx, h.y + h.height / 2, { steps: 8 });
		await page.mouse.up();
		await frame(page);
		const s = await st(page);
		const want = s.lo + (tx - ruler.x) / s.W * (s.hi - s.lo), perPx = (s.hi - s.lo) / s.W;
		check(`drag bar to ${frac * 100}%: bar at the pointer's time`, Math.abs(s.bar - want) <= perPx,
		      `bar ${s.bar.toFixed(0)} ns, pointer ${want.toFixed(0)} ns`);
		const sel = await page.evaluate(() => {
			const r = window.dpView.selectedRow();
			const e = document.querySelector(`.grid-row[data-row='${r}']`);
			const g = document.getElementById("grid").getBoundingClientRect();
			const b = e && e.getBoundingClientRect();
			return { r, t: r >= 0 ? window.dpView.rowTime(r) : null, shown: !!e && e.classList.contains("sel") &&
				 b.top >= g.top && b.bottom <= g.bottom };
		});
		const exp = expectedRowTime(model, s.bar);
		check(`drag bar to ${frac * 100}%: grid selects the nearest event and shows it`,
		      exp !== null && sel.t === exp && sel.shown, `row ${sel.r} at ${sel.t} ns, nearest ${exp} ns`);
	}

	// click a grid row other than the selected one: the bar goes to its time
	const target = await page.evaluate(() => {
		const rows = [...document.querySelectorAll(".grid-row")].filter((e) => !e.classList.contains("sel"));
		const g = document.getElementById("grid").getBoundingClientRect();
		const e = rows.find((x) => x.getBoundingClientRect().top > g.top + 30 && x.getBoundingClientRect().bottom < g.bottom);
		return e ? { row: +e.dataset.row, t: +e.dataset.t } : null;
	});
	if (target) {
		// on its time: the function's name in a row opens the annotate pane
		await page.locator(`.grid-row[data-row='${target.row}'] span`).first().click();
		await frame(page);
		const s = await st(page);
		const sel = await page.evaluate(() => window.dpView.rowTime(window.dpView.selectedRow()));
		check("click a grid row: the bar moves to its time and the range centres on it",
		      s.bar === target.t && Math.abs((s.lo + s.hi) / 2 - target.t) < (s.hi - s.lo) * 0.01 + 1 ||
		      (s.bar === target.t && (s.lo === 0 || s.hi >= s.lo)), `row ${target.row} at ${target.t}, bar ${s.bar}`);
		check("click a grid row: that row (or one at its time) is selected", sel === target.t);
	} else {
		check("click a grid row: a row to click", false);
	}

	// zoom in with the button, out with the wheel: the bar keeps its time and place
	for (const how of ["button", "wheel"]) {
		const a = await st(page);
		const xa = (a.bar - a.lo) / (a.hi - a.lo) * a.W;
		if (how === "button")
			await page.click("#zoom-in");
		else {
			const lane = await page.locator(".lane canvas").first().boundingBox();
			await page.mouse.move(lane.x + lane.width / 2, lane.y + 10);
			await page.mouse.wheel(0, 100);
		}
		await frame(page);
		const b = await st(page);
		const xb = (b.bar - b.lo) / (b.hi - b.lo) * b.W;
		check(`zoom (${how}): the bar keeps its time and its place`,
		      a.bar === b.bar && Math.abs(xa - xb) <= 1 && Math.abs((b.hi - b.lo) - (a.hi - a.lo)) > 1,
		      `span ${(a.hi - a.lo).toFixed(0)} -> ${(b.hi - b.lo).toFixed(0)} ns, bar x ${xa.toFixed(1)} -> ${xb.toFixed(1)}`);
	}

	// rubber band on the first counter chart
	await page.click("#zoom-reset");
	await frame(page);
	// in view first: mouse events outside the viewport reach nothing (the
	// page is taller where fonts are larger)
	await page.locator("#graphs .u-over").first().scrollIntoViewIfNeeded();
	await frame(page);
	const over = await page.locator("#graphs .u-over").first().boundingBox();
	check("the first counter chart is in view", over && over.y >= 0 && over.y + over.height <= 1000,
	      over ? `y ${over.y.toFixed(0)}, height ${over.height.toFixed(0)}` : "no box");
	const a = await st(page);
	const x1 = over.x + over.width * 0.2, x2 = over.x + over.width * 0.45, y = over.y + over.height / 2;
	await page.mouse.move(x1, y);
	await page.mouse.down();
	await page.mouse.move(x2, y, { steps: 6 });
	await page.mouse.up();
	await frame(page);
	const b = await st(page);
	const perPx = (a.hi - a.lo) / a.W;
	const lo = a.lo + (x1 - over.x) * perPx, hi = a.lo + (x2 - over.x) * perPx;
	check("rubber band on the graph: the range becomes the band", Math.abs(b.lo - lo) <= 2 * perPx &&
	      Math.abs(b.hi - hi) <= 2 * perPx, `${b.lo.toFixed(0)}..${b.hi.toFixed(0)} vs ${lo.toFixed(0)}..${hi.toFixed(0)}`);
	await page.click("#zoom-reset");
	await frame(page);

	// the graph, ruler and lanes agree on where the bar is
	const xs = await page.evaluate(() => {
		const r = document.getElementById("ruler").getBoundingClientRect();
		const o = document.querySelector("#graphs .u-over").getBoundingClientRect();
		const l = document.querySelector(".lane canvas").getBoundingClientRect();
		return [r.left, r.width, o.left, o.width, l.left, l.width];
	});
	check("panels share one time axis (ruler, graph, lanes: same left and width)",
	      Math.abs(xs[0] - xs[2]) < 1 && Math.abs(xs[0] - xs[4]) < 1 && Math.abs(xs[1] - xs[3]) < 1 &&
	      Math.abs(xs[1] - xs[5]) < 1, xs.map((v) => v.toFixed(1)).join(" "));

	// a data row filters the lanes
	const before = await page.evaluate(() => document.querySelectorAll(".drow").length);
	await page.locator(".drow").first().click();
	await frame(page);
	const f = await page.evaluate(() => ({ filter: window.dpView.state.filter, chip: !document.getElementById("filter").hidden,
						active: document.querySelectorAll(".drow.active").length }));
	check("click a data row: the lanes are filtered by it", before > 0 && f.filter && f.chip && f.active === 1,
	      JSON.stringify(f.filter));
	await page.locator(".drow").first().click();
	await frame(page);

	// bar back to the middle, then the screenshot
	await page.evaluate(() => {
		const m = window.dpView.model;
		window.dpView.setState({ bar: m.overlap ? (m.overlap[0] + m.overlap[1]) * 0.42 : 0 });
	});
	await frame(page);
	const png = path.join(outDir, "view.png");
	await page.screenshot({ path: png, fullPage: true });
	const stats = await pixels(page, png, []); /* the PNG's colours and ink */
	check("screenshot: not blank", stats.colors > 40 && stats.ink > 0.03,
	      `${stats.w}x${stats.h}, ${stats.colors} colours, ${(stats.ink * 100).toFixed(1)}% ink, ${png}`);
	check("full page: no console error", errors.length === 0, errors.join(" | "));
	check("full page: no request beyond the file", requests.length === 0, requests.join(" "));
	await page.close();
}

async function emptyChecks(ctx) {
	const { page, errors, requests } = await open(ctx, emptyPage);
	const t = await page.evaluate(() => document.getElementById("empty").hidden ? "" : document.getElementById("empty").textContent);
	check("empty profile: the page says it has no samples", /no samples/.test(t), t);
	check("empty profile: no console error, no request", !errors.length && !requests.length, errors.join(" | "));
	await page.close();
}

async function plainChecks(ctx) {
	const { page, errors, requests } = await open(ctx, plainPage);
	const t = await page.evaluate(() => document.body.innerText);
	check("no counters: the graph says record --counters", /record --counters/.test(t));
	check("no marks: the grid says record --markers", /record --markers/.test(t));
	check("plain profile: no console error, no request", !errors.length && !requests.length, errors.join(" | "));
	await page.close();
}

// a perf.data whose kernel dropped samples (perf report --stats: one
// LOST_SAMPLES on cycles:pp, one on branch-instructions:pp): the summary
// says how many and where
async function lostChecks(ctx) {
	const data = path.join(__dirname, "..", "data", "perf-data", "quipper-lost_samples-4.4.data");
	const html = path.join(outDir, "lost.html");

	execFileSync(dataprof, ["view", data, "-o", html]);
	const { page, errors, requests } = await open(ctx, html);
	const t = await page.evaluate(() => document.getElementById("summary").textContent);
	check("lost samples: the summary says where", /2 lost \(cycles:pp 1, branch-instructions:pp 1\)/.test(t), t);
	check("lost page: no console error, no request", !errors.length && !requests.length, errors.join(" | "));
	await page.close();
}

// ---- the annotate pane --------------------------------------------------

function annotateJson(dprof, extra) {
	return JSON.parse(execFileSync(dataprof, ["annotate", "-i", dprof, "--json", "-n", "1000", ...(extra || [])],
				       { encoding: "utf8", maxBuffer: 256 << 20 }));
}

// annotate's "v90 u10" from its JSON verdict counts
const VERDICT_LETTERS = { exact: "e", verified: "v", unverifiable: "u", unresolvable: "r", no_memory: "n" };
function jsonMix(ins) {
	return Object.keys(VERDICT_LETTERS).filter((k) => ins.verdicts[k])
		.map((k) => VERDICT_LETTERS[k] + Math.round(100 * ins.verdicts[k] / ins.samples)).join(" ");
}

const heatRGB = (f) => [220, 50, 32].map((c) => Math.round(255 + (c - 255) * f));

async function paneRows(page) {
	return page.evaluate(() => [...document.querySelectorAll("#annot-rows .ainsn")].map((e) => ({
		addr: e.dataset.addr, samples: +e.dataset.samples, share: e.children[1].textContent,
		mix: e.children[2].textContent, data: e.children[5].textContent, row: +e.dataset.row,
	})));
}

async function paneState(page) {
	return page.evaluate(() => ({
		open: !document.getElementById("annot").hidden, split: !document.querySelector(".split").hidden,
		title: document.getElementById("annot-title").textContent,
		why: document.getElementById("annot-why").hidden ? "" : document.getElementById("annot-why").textContent,
		annot: window.dpView.state.annot,
	}));
}

// The pane's instruction rows against annotate's instructions of f: the
// same addresses in the same order, every count, share, verdict mix, and
// each access's object and member in the data column. Returns the number
// of mismatches (each printed).
function compareRows(label, rows, f) {
	let bad = 0;
	const say = (m) => { if (bad++ < 5) console.log(`  ${label}: ${m}`); };
	if (rows.length !== f.instructions.length)
		say(`${rows.length} rows, annotate lists ${f.instructions.length} instructions`);
	f.instructions.forEach((ins, k) => {
		const r = rows[k];
		if (!r)
			return;
		const addr = parseInt(ins.addr, 16).toString(16);
		if (r.addr !== addr)
			say(`row ${k}: address ${r.addr}, annotate ${addr}`);
		if (r.samples !== ins.samples)
			say(`0x${addr}: ${r.samples} samples, annotate ${ins.samples}`);
		if (!ins.samples)
			return;
		const share = (100 * ins.share).toFixed(1) + "%";
		if (r.share !== share)
			say(`0x${addr}: share ${r.share}, annotate ${share}`);
		if (r.mix !== jsonMix(ins))
			say(`0x${addr}: verdicts '${r.mix}', annotate '${jsonMix(ins)}'`);
		for (const a of ins.accesses)
			if (!r.data.includes(a.object + (a.member ? " " + a.member : "")))
				say(`0x${addr}: data '${r.data}' lacks ${a.object} ${a.member || ""}`);
	});
	return bad;
}

// Pixels of a PNG (decoded by the page's own canvas) at page coordinates
// relative to the clip's origin.
async function pixels(page, png, points) {
	return page.evaluate(async ([b64, pts]) => {
		const img = new Image();
		img.src = "data:image/png;base64," + b64;
		await img.decode();
		const c = document.createElement("canvas");
		c.width = img.width;
		c.height = img.height;
		const g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const d = g.getImageData(0, 0, c.width, c.height).data, colors = new Set();
		let ink = 0;
		for (let i = 0; i < d.length; i += 4 * 5) {
			colors.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3));
			if (d[i] + d[i + 1] + d[i + 2] < 600)
				ink++;
		}
		const at = pts.map(([x, y]) => {
			const i = (Math.round(y) * c.width + Math.round(x)) * 4;
			return [d[i], d[i + 1], d[i + 2]];
		});
		return { w: c.width, h: c.height, colors: colors.size, ink: ink / (d.length / 20), at };
	}, [fs.readFileSync(png).toString("base64"), points]);
}

const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 3);

// plain: split_O2, whose stores name struct rec's members
async function annotPlainChecks(ctx) {
	const dprof = plainPage.replace(/\.html$/, ".dprof");
	const json = annotateJson(dprof);
	const { page, errors } = await open(ctx, plainPage);
	const list = await page.evaluate(() => [...document.querySelectorAll("#code-funcs .frow")].map((e) =>
		({ fn: +e.dataset.fn, name: e.children[0].textContent, samples: +e.dataset.samples })));
	const byName = new Map(json.functions.map((f) => [f.name, f]));
	const wrong = list.filter((x) => !byName.has(x.name) || byName.get(x.name).samples !== x.samples);
	check("annotate pane: the Code panel lists functions with annotate's samples", list.length >= 2 && !wrong.length,
	      `${list.length} functions; ${list.slice(0, 3).map((x) => x.name + " " + x.samples).join(", ")}` +
	      (wrong.length ? `; wrong: ${wrong.map((x) => x.name + " " + x.samples).join(", ")}` : ""));
	const hotAll = json.functions.slice(0, 2).map((f) => f.name);
	check("annotate pane: the list's two hottest are annotate's", list.length >= 2 &&
	      list[0].name === hotAll[0] && list[1].name === hotAll[1], list.slice(0, 2).map((x) => x.name).join(", "));

	// the instruction with most samples on a member, and its function
	let target = null, hot = null;
	for (const f of json.functions)
		for (const ins of f.instructions)
			if (ins.accesses.some((a) => a.member) && (!hot || ins.samples > hot.samples))
				hot = ins, target = f;
	check("annotate --json: an instruction touches a member", !!hot, hot ? `${hot.addr} ${hot.samples}` : "");
	if (!hot)
		return page.close();
	const topAccess = [...hot.accesses].sort((a, b) => b.samples - a.samples)[0];
	await page.locator("#code-funcs .frow", { hasText: target.name }).first().click();
	await frame(page);
	const ps = await paneState(page);
	check("annotate pane: clicking a function row opens it in the grid's place", ps.open && !ps.split &&
	      ps.title === target.name, `${ps.title}, open ${ps.open}, grid shown ${ps.split}`);
	const rows = await paneRows(page);
	const bad = compareRows(target.name, rows, target);
	check(`annotate pane: ${target.name}'s rows are annotate's (addresses, samples, shares, verdicts, accesses)`,
	      bad === 0 && rows.length > 5, `${rows.length} rows, ${bad} differences`);
	const hr = rows.find((r) => r.addr === parseInt(hot.addr, 16).toString(16));
	const want = topAccess.object + " " + topAccess.member;
	check("annotate pane: the hottest instruction on a member shows annotate's count and member",
	      hr && hr.samples === hot.samples && hr.data.startsWith(want),
	      hr ? `0x${hr.addr}: ${hr.samples} samples, '${hr.data}'; annotate ${hot.samples}, ${want}` : "no row");
	const lineRows = await page.evaluate(() => [...document.querySelectorAll("#annot-rows .aline")].map((e) =>
		({ line: e.querySelector(".src").textContent.split("  ")[0], samples: +e.dataset.samples })));
	const lines = new Map(target.lines.map((l) => [l.line, l.samples]));
	const badLines = lineRows.filter((l) => lines.get(l.line) !== l.samples);
	check("annotate pane: the source lines' samples are annotate's", lineRows.length > 0 && !badLines.length,
	      `${lineRows.length} line rows` + (badLines.length ? `; ${badLines[0].line}: ${badLines[0].samples}` : ""));

	// the screenshot: the heat colours where the rows are
	const png = path.join(outDir, "annotate.png");
	const box = await page.locator("#code-panel").boundingBox();
	const maxP = Math.max(...target.instructions.map((i) => i.period));
	const hottest = target.instructions.find((i) => i.period === maxP);
	const other = target.instructions.filter((i) => i.period && i.period < maxP * 0.8)
		.sort((a, b) => b.period - a.period)[0];
	const pts = await page.evaluate(([bx, addrs]) => addrs.map((a) => {
		const e = a && document.querySelector(`#annot-rows .ainsn[data-addr='${a}']`);
		if (!e)
			return null;
		e.scrollIntoView({ block: "center" });
		const s = e.querySelector(".heat").getBoundingClientRect(), r = e.getBoundingClientRect();
		return [[s.left + s.width / 2 - bx.x, s.top + s.height / 2 - bx.y], [r.right - 4 - bx.x, r.top + 2 - bx.y]];
	}), [box, [parseInt(hottest.addr, 16).toString(16)]]);
	await page.screenshot({ path: png, clip: box });
	const px = await pixels(page, png, pts[0] || []);
	check("annotate screenshot: the pane is drawn (not blank)", px.colors > 12 && px.ink > 0.01,
	      `${px.w}x${px.h}, ${px.colors} colours, ${(px.ink * 100).toFixed(1)}% ink, ${png}`);
	check("annotate screenshot: the hottest instruction's swatch is the full heat colour",
	      pts[0] && near(px.at[0], heatRGB(1)), `${hottest.addr}: rgb(${px.at[0]}) vs rgb(${heatRGB(1)})`);
	check("annotate screenshot: the hottest instruction's row is heat-tinted",
	      pts[0] && near(px.at[1], heatRGB(0.3)), `rgb(${px.at[1]}) vs rgb(${heatRGB(0.3)})`);
	if (other) {
		const p2 = await page.evaluate(([bx, a]) => {
			const e = document.querySelector(`#annot-rows .ainsn[data-addr='${a}']`);
			e.scrollIntoView({ block: "center" });
			const s = e.querySelector(".heat").getBoundingClientRect();
			return [[s.left + s.width / 2 - bx.x, s.top + s.height / 2 - bx.y]];
		}, [box, parseInt(other.addr, 16).toString(16)]);
		await page.screenshot({ path: png, clip: box });
		const q = await pixels(page, png, p2);
		const f = other.period / maxP;
		check("annotate screenshot: a cooler instruction's swatch is the heat of its share of the hottest",
		      near(q.at[0], heatRGB(f)) && !near(q.at[0], heatRGB(1)),
		      `${other.addr} at ${(100 * f).toFixed(1)}%: rgb(${q.at[0]}) vs rgb(${heatRGB(f)})`);
	}

	// a function without source: assembly and annotate's one line why
	const nosrc = json.functions.find((f) => f.source_missing && list.some((x) => x.name === f.name));
	await page.click("#annot-close");
	await frame(page);
	const closed = await paneState(page);
	const gridRows = await page.evaluate(() => document.querySelectorAll(".grid-row").length);
	check("annotate pane: close brings the grid back", !closed.open && closed.split && gridRows > 0 && !closed.annot,
	      `open ${closed.open}, grid ${closed.split}, ${gridRows} grid rows`);
	if (nosrc) {
		await page.locator("#code-funcs .frow", { hasText: nosrc.name }).first().click();
		await frame(page);
		const s2 = await paneState(page);
		const r2 = await paneRows(page);
		check("annotate pane: missing source gives the assembly and annotate's explanation",
		      s2.why === nosrc.source_missing && r2.length === nosrc.instructions.length && compareRows(nosrc.name, r2, nosrc) === 0,
		      `${nosrc.name}: '${s2.why}'`);
		await page.keyboard.press("Escape");
		await frame(page);
		check("annotate pane: Escape closes it", !(await paneState(page)).open);
	}

	// from a data row: the function with most samples on that object and
	// member (annotate's), its rows on them highlighted
	const drows = await page.evaluate(() => [...document.querySelectorAll(".drow.d1")].map((e) => {
		const f = JSON.parse(e.dataset.filter), S = window.dpView.model.S;
		return { path: e.dataset.path, object: S[f.object], member: S[f.member] };
	}));
	let drow = null, best = null;
	for (const d of drows) {
		let bn = 0;
		for (const f of json.functions) {
			const n = f.instructions.reduce((s, i) => s + i.accesses.filter((a) => a.object === d.object &&
				a.member === d.member).reduce((t, a) => t + a.samples, 0), 0);
			if (n > bn)
				best = f.name, bn = n;
		}
		if (bn) {
			drow = d;
			break;
		}
	}
	check("annotate pane: a data row's object and member are in annotate's accesses", !!drow,
	      drows.map((d) => d.object + " " + d.member).join(", "));
	if (drow) {
		await page.locator(`.drow[data-path='${drow.path}'] .open-code`).click();
		await frame(page);
		const s3 = await paneState(page);
		const hl = await page.evaluate(() => [...document.querySelectorAll("#annot-rows .ainsn.hl")].map((e) => e.children[5].textContent));
		check("annotate pane: a data row's code opens the function with most samples on it, those rows highlighted",
		      s3.open && s3.title === best && hl.length > 0 && hl.every((t) => t.includes(drow.object + " " + drow.member)),
		      `${drow.object} ${drow.member} -> ${s3.title} (annotate: ${best}), ${hl.length} rows highlighted`);
		await page.click("#annot-close");
		await frame(page);
	}
	// from a grid row's function
	const fnl = await page.evaluate(() => {
		const e = document.querySelector(".grid-row .fn-link");
		return e ? { name: e.textContent, row: e.closest(".grid-row").dataset.row } : null;
	});
	if (fnl) {
		await page.locator(`.grid-row[data-row='${fnl.row}'] .fn-link`).click();
		await frame(page);
		const s4 = await paneState(page);
		check("annotate pane: a grid row's function opens its code", s4.open && s4.title === fnl.name, `${fnl.name} -> ${s4.title}`);
	} else {
		check("annotate pane: grid rows link their function", false);
	}
	check("annotate pane (plain page): no console error", errors.length === 0, errors.join(" | "));
	await page.close();
}

// full: a time range recounts the pane as annotate --time counts it
async function annotTimeChecks(ctx) {
	const dprof = fullPage.replace(/\.html$/, ".dprof");
	const json = annotateJson(dprof);
	const { page, errors } = await open(ctx, fullPage);
	const target = json.functions[0];
	await page.locator("#code-funcs .frow", { hasText: target.name }).first().click();
	await frame(page);
	const before = await paneRows(page);
	check(`annotate pane (full page): ${target.name} over the whole profile is annotate's`,
	      compareRows(target.name, before, target) === 0 && (await paneState(page)).title === target.name);
	// a rubber band over the first half of the time the function was
	// sampled in (from the page's own buckets: a fixed share of the chart
	// may miss the function altogether on a run where its phase came
	// later, as it did on a loaded machine)
	await page.locator("#graphs .u-over").first().scrollIntoViewIfNeeded();
	const over = await page.locator("#graphs .u-over").first().boundingBox();
	const span = await page.evaluate((r) => {
		const v = window.dpView, a = v.annot, f = a.fns.find((x) => x.name === r);
		const seen = new Set();
		for (let i = 0; i < a.cBucket.length; i++) {
			const row = a.kInsn[a.cCombo[i]];
			if (row >= f.r0 && row < f.r1 && a.cVal[0][i])
				seen.add(a.cBucket[i]);
		}
		const b = [...seen].sort((x, y) => x - y), bw = v.model.bw;
		const k = Math.max(1, Math.floor(b.length / 2));
		/* from the first sampled bucket's start to the middle of the k-th */
		return { lo: v.state.lo, hi: v.state.hi, t0: b[0] * bw, t1: (b[k - 1] + 0.5) * bw, n: b.length };
	}, target.name);
	const xAt = (t) => over.x + over.width * (t - span.lo) / (span.hi - span.lo);
	const y = over.y + over.height / 2;
	await page.mouse.move(Math.max(over.x + 1, xAt(span.t0) - 1), y);
	await page.mouse.down();
	await page.mouse.move(Math.max(xAt(span.t1), xAt(span.t0) + 6), y, { steps: 6 });
	await page.mouse.up();
	await frame(page);
	const s = await page.evaluate(() => ({ lo: window.dpView.state.lo, hi: window.dpView.state.hi,
					       bw: window.dpView.model.bw, nb: window.dpView.model.nb }));
	// the pane counts the buckets that overlap the range, as the data view does
	const b0 = Math.max(0, Math.floor(s.lo / s.bw)), b1 = Math.min(s.nb, Math.ceil(s.hi / s.bw));
	const range = `${b0 * s.bw}ns..${b1 * s.bw - 1}ns`;
	const tj = annotateJson(dprof, ["--time", range, target.name]);
	const after = await paneRows(page);
	const tf = tj.functions.find((f) => f.name === target.name);
	const sum = (rs) => rs.reduce((t, r) => t + r.samples, 0);
	check("annotate pane: the range has some but not all of the function's samples (the check can fail)",
	      sum(after) > 0 && sum(after) < sum(before), `${sum(after)} of ${sum(before)} samples in ${range}`);
	const bad = tf ? compareRows(target.name + " " + range, after, tf) : -1;
	check("annotate pane: a time range recounts every row as annotate --time does", bad === 0,
	      `annotate -i full.dprof --time ${range}: ${tf ? tf.samples : 0} samples, ${bad} differences`);
	// the bar in a bucket where the function ran: the instructions annotate
	// --time counts in that bucket are the ones marked
	const bucket = await page.evaluate((r) => {
		const a = window.dpView.annot, f = a.fns.find((x) => x.name === r);
		for (let i = 0; i < a.cBucket.length; i++) {
			const row = a.kInsn[a.cCombo[i]];
			if (row >= f.r0 && row < f.r1 && a.cVal[0][i])
				return a.cBucket[i];
		}
		return -1;
	}, target.name);
	await page.evaluate((t) => window.dpView.setState({ bar: t }), (bucket + 0.5) * s.bw);
	await frame(page);
	const bj = annotateJson(dprof, ["--time", `${bucket * s.bw}ns..${(bucket + 1) * s.bw - 1}ns`, target.name]);
	const want = (bj.functions[0] || { instructions: [] }).instructions.filter((i) => i.samples)
		.map((i) => parseInt(i.addr, 16).toString(16));
	const got = await page.evaluate(() => [...document.querySelectorAll("#annot-rows .ainsn.atbar")].map((e) => e.dataset.addr));
	check("annotate pane: the instructions sampled in the bar's bucket are marked, as annotate --time counts them",
	      bucket >= 0 && want.length > 0 && got.join() === want.join(), `bucket ${bucket}: ${got.join(" ")} vs ${want.join(" ")}`);
	check("annotate pane (full page): no console error", errors.length === 0, errors.join(" | "));
	await page.close();
}

// The hottest ranges of branch stacks: opening a function lists its ranges
// first, one row each, in the data's order, with the data's runs, start
// and end (the data itself is annotate --json's: test_branch_stacks).
async function rangesChecks(ctx)
{
	const {page, errors} = await open(ctx, rangesPage);
	const fns = await page.evaluate(() => {
		const d = JSON.parse(document.getElementById("dp-data").textContent);
		return d.annotate.functions.filter((f) => f.ranges.length)
		    .map((f) => ({
				 name : d.strings[f.name],
				 ranges : f.ranges.map(
				     (r) => [r[0].toString(16), r[1].toString(16), r[2]])
			 }));
	});
	check("ranges page: functions with ranges", fns.length >= 2,
	      fns.map((f) => f.name).join(", "));
	for (const f of fns) {
		await page.locator("#code-funcs .frow", {hasText : f.name}).first().click();
		await frame(page);
		const rows = await page.evaluate(
		    () => [...document.querySelectorAll("#annot-rows .arange[data-runs]")].map(
			(e) => [e.dataset.start, e.dataset.end, +e.dataset.runs]));
		check(`ranges page: ${f.name}'s listing begins with its ${
			  f.ranges.length} hottest ranges`,
		      JSON.stringify(rows) === JSON.stringify(f.ranges), JSON.stringify(rows));
		await page.click("#annot-close");
		await frame(page);
	}
	check("ranges page: no console error", errors.length === 0, errors.join(" | "));
	await page.close();
}

inChromium(async (ctx) => {
	await fullChecks(ctx);
	if (emptyPage)
		await emptyChecks(ctx);
	if (plainPage)
		await plainChecks(ctx);
	if (dataprof)
		await lostChecks(ctx);
	if (dataprof && plainPage) {
		await annotPlainChecks(ctx);
		await annotTimeChecks(ctx);
	}
	if (rangesPage)
		await rangesChecks(ctx);
});
