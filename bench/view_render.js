// The view page's cost in Chromium: time from navigation to the page's own
// "dp-ready" mark (data parsed and decoded, every panel drawn), the best and
// median of RUNS loads; then the redraw time while panning and zooming (the
// page's own timing of each redraw), median and worst of 60 steps.
//   node view_render.js PAGE.html [RUNS=3]   (NODE_PATH: playwright-core)
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const page_ = path.resolve(process.argv[2]), runs = +(process.argv[3] || 3);

(async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dp-bench-chromium-"));
	const ctx = await chromium.launchPersistentContext(dir, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, offline: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		       "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	const ready = [];
	let pan = null;
	for (let i = 0; i < runs; i++) {
		const page = await ctx.newPage();
		await page.setViewportSize({ width: 1400, height: 1000 });
		await page.goto("file://" + page_, { timeout: 120000 });
		await page.waitForSelector("body[data-ready='1']", { timeout: 120000 });
		ready.push(await page.evaluate(() => performance.getEntriesByName("dp-ready")[0].startTime));
		if (i === runs - 1) {
			pan = await page.evaluate(async () => {
				const v = window.dpView, s = v.state, times = [];
				const frame = () => new Promise((r) => requestAnimationFrame(r));
				v.setState({ lo: s.lo, hi: s.lo + (s.hi - s.lo) / 4 });
				await frame();
				for (let k = 0; k < 60; k++) {
					if (k % 20 === 10)
						v.zoomAroundBar(k % 40 === 10 ? 0.5 : 2);
					else {
						const d = (s.hi - s.lo) / 40;
						v.setState({ lo: s.lo + d, hi: s.hi + d, bar: s.bar + d });
					}
					await frame();
					times.push(v.flushTimes[v.flushTimes.length - 1]);
				}
				times.sort((a, b) => a - b);
				return { median: times[30], worst: times[59] };
			});
		}
		await page.close();
	}
	await ctx.close();
	fs.rmSync(dir, { recursive: true, force: true });
	ready.sort((a, b) => a - b);
	console.log(`ready_ms_best ${ready[0].toFixed(0)} ready_ms_median ${ready[ready.length >> 1].toFixed(0)} ` +
		    `pan_redraw_ms_median ${pan.median.toFixed(1)} pan_redraw_ms_worst ${pan.worst.toFixed(1)}`);
})();
