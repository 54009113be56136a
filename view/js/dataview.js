/* The data view: report's default tables (objects, then their members,
 * then their lines) over the time range shown, from the buckets that
 * overlap it. Click a row to filter the lanes by it (click again, or the
 * chip above, to clear); click the triangle to open or close it, "code" to
 * open the code that touched it (annotate.js). */

function DataView(m) {
	const box = $("data");
	const open = new Set();
	let tree = null, firstDraw = true, lastKey = "";

	$("metric-head").textContent = m.timeMetric ? "CPU time" : "period";
	box.addEventListener("click", (e) => {
		const r = e.target.closest(".drow");
		if (!r)
			return;
		if (e.target.classList.contains("open-code")) {
			if (annotApi)
				annotApi.open(JSON.parse(r.dataset.filter));
			return;
		}
		if (e.target.classList.contains("tw")) {
			const k = r.dataset.path;
			open.has(k) ? open.delete(k) : open.add(k);
			draw();
			return;
		}
		const f = JSON.parse(r.dataset.filter);
		setState({ filter: sameFilter(f, state.filter) ? null : f });
	});

	function sameFilter(a, b) {
		return !!a && !!b && a.object === b.object && a.member === b.member && a.line === b.line;
	}

	function metric(v) {
		return m.timeMetric ? fmtTime(v) : fmtCount(v);
	}

	function draw() {
		box.textContent = "";
		if (!tree || !tree.samples) {
			box.appendChild(el("div", "note", "No samples in this range."));
			return;
		}
		const total = tree.period || 1;
		if (firstDraw) {
			/* like report's default view: the top objects open, with their top member */
			tree.list.slice(0, 3).forEach((o) => {
				open.add("" + o.key);
				if (o.list.length)
					open.add(o.key + "/" + o.list[0].key);
			});
			firstDraw = false;
		}
		const frag = document.createDocumentFragment();
		const add = (n, depth, path, f) => {
			const r = el("div", "drow d" + depth);
			const name = el("span", "");
			const tw = el("span", "tw", depth < 2 ? (open.has(path) ? "▾" : "▸") : "");
			name.append(tw, document.createTextNode(m.S[n.key]));
			name.title = m.S[n.key];
			r.append(name, el("span", "num", fmtCount(n.samples)),
				 el("span", "num", (100 * n.period / total).toFixed(1) + "%"),
				 el("span", "num", metric(n.period)),
				 el("span", "open-code", annotApi ? "code" : ""));
			r.dataset.path = path;
			r.dataset.filter = JSON.stringify(f);
			r.dataset.depth = depth;
			if (sameFilter(f, state.filter))
				r.classList.add("active");
			frag.appendChild(r);
		};
		for (const o of tree.list.slice(0, 200)) {
			const fo = { object: o.key };
			add(o, 0, "" + o.key, fo);
			if (!open.has("" + o.key))
				continue;
			for (const mb of o.list.slice(0, 50)) {
				const pm = o.key + "/" + mb.key, fm = { object: o.key, member: mb.key };
				add(mb, 1, pm, fm);
				if (!open.has(pm))
					continue;
				for (const ln of mb.list.slice(0, 20))
					add(ln, 2, pm + "/" + ln.key, { object: o.key, member: mb.key, line: ln.key });
			}
		}
		box.appendChild(frag);
	}

	return {
		render(c) {
			const key = state.lo + "," + state.hi;
			if (key !== lastKey) {
				lastKey = key;
				tree = dataTree(m, state.lo, state.hi);
				$("data-note").textContent = fmtTime(state.lo) + " – " + fmtTime(state.hi) + " · " +
					fmtCount(tree.samples) + " samples";
				draw();
			} else if (c.filter) {
				draw();
			}
			const chip = $("filter");
			chip.hidden = !state.filter;
			if (state.filter) {
				const f = state.filter;
				chip.textContent = "lanes: " + [f.object, f.member, f.line].filter((x) => x !== undefined)
					.map((x) => m.S[x]).join(" › ");
			}
		},
	};
}
