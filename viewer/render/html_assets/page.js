/*
 * page.js - the timeline of the page `gapscope html` writes (embedded at
 * build time by html_assets/embed.cmake; nothing is fetched).
 *
 * Each run's events sit in a JSON script element (class gs-data)
 * block as compact per-row arrays (render_html.c documents the layout). This
 * script decodes them once, then draws only what is visible: per row and
 * lane, events narrower than a pixel are merged into one rect per pixel
 * column, so the SVG holds at most a few rects per column whatever the trace
 * size. The view opens on data.view (the GPU window, or the selected NVTX
 * ranges: the CUDA initialisation before the first GPU op can take seconds
 * of a run whose GPU work lasts milliseconds); double-click switches to
 * the whole trace and back. Wheel zooms around the cursor, drag pans; hover
 * shows a tooltip, clicking an idle gap shows why the GPU was idle.
 * Trace strings only ever reach the DOM through textContent.
 * A capture trace (record --capture-range) has data.capture: the time
 * outside its capture windows was not recorded, and is hatched across all
 * rows (class "unrec", tooltip naming the windows around it) so that it
 * does not read as idle GPU; its gaps' tooltips name their window.
 *
 * For tests it writes its state on <body>: data-status ("ok" or
 * "error: ..."), data-rects (event rects drawn), data-events (decoded),
 * data-draw-ms (decoding and first drawing, ms), data-unrec (hatched
 * not-recorded spans drawn).
 * "#w=<px>" in the URL fixes the plot width; "#all" opens on the whole
 * trace; "#probe" hovers and clicks the first drawn event, "#probe-unrec"
 * the first hatched not-recorded span (see the end of this file).
 */
(function () {
	'use strict';
	var body = document.body;
	window.addEventListener('error', function (e) {
		body.setAttribute('data-status', 'error: ' + e.message);
	});

	var SVGNS = 'http://www.w3.org/2000/svg';
	var LABEL_W = 230, AXIS_H = 20, LANE_H = 13, ROW_GAP = 5, MAX_LANES = 4;
	/* gap model v2: enum gs_cause order, gs_cause_name() and the colours of
	 * render_html.c (cause_colors) */
	var CAUSES = ['sync wait', 'CUDA API', 'host code', 'launch latency', 'graph-internal',
		      'dependency', 'other'];
	var CAUSE_COLORS = ['#d62728', '#e377c2', '#8c564b', '#bcbd22', '#393b79', '#ff9f40',
			    '#7f7f7f'];
	/* enum gs_op_kind; 3: a whole graph launch of a graph-level trace
	 * (schema v2 graph_runs), legend colour in render_html.c */
	var OP_KINDS = ['kernel', 'memcpy', 'memset', 'graph run'];
	var OP_COLORS = ['#4c78a8', '#f58518', '#54a24b', '#a0c4e8'];
	var STRIDE = { gap: 10, ops: 4, api: 3, sync: 4, nvtx: 4 };
	var forcedWidth = (/[#&]w=(\d+)/.exec(location.hash) || [])[1];
	var openAll = /[#&]all/.test(location.hash);

	function fmt(ns) {
		var a = Math.abs(ns);
		if (a < 1e3) return ns.toFixed(0) + ' ns';
		if (a < 1e6) return (ns / 1e3).toPrecision(3) + ' \u00b5s';
		if (a < 1e9) return (ns / 1e6).toPrecision(3) + ' ms';
		return (ns / 1e9).toPrecision(4) + ' s';
	}

	function lowerBound(arr, n, v) {
		var lo = 0, hi = n;
		while (lo < hi) {
			var mid = (lo + hi) >> 1;
			if (arr[mid] < v) lo = mid + 1; else hi = mid;
		}
		return lo;
	}

	/* Decode one row: absolute starts/ends, then lanes (first fit) so that
	 * nested or overlapping events are drawn one above the other. */
	function decodeRow(row) {
		var st = STRIDE[row.k], d = row.d, n = d.length / st;
		var starts = new Float64Array(n), ends = new Float64Array(n);
		var lanes = [], laneEnd = [], t = 0, i, l;
		for (i = 0; i < n; i++) {
			t += d[i * st];
			starts[i] = t;
			ends[i] = t + d[i * st + 1];
		}
		for (i = 0; i < n; i++) {
			for (l = 0; l < laneEnd.length; l++)
				if (laneEnd[l] <= starts[i]) break;
			if (l === laneEnd.length) {
				if (l < MAX_LANES) { laneEnd.push(0); lanes.push([]); }
				else l = MAX_LANES - 1; /* overflow: overlaps in the last lane */
			}
			lanes[l].push(i);
			if (ends[i] > laneEnd[l]) laneEnd[l] = ends[i];
		}
		if (!lanes.length) lanes.push([]);
		row.count = n;
		row.starts = starts;
		row.ends = ends;
		row.lanes = lanes.map(function (idx) {
			var m = idx.length, s = new Float64Array(m), maxDur = 0, j;
			for (j = 0; j < m; j++) {
				s[j] = starts[idx[j]];
				maxDur = Math.max(maxDur, ends[idx[j]] - starts[idx[j]]);
			}
			return { idx: Int32Array.from(idx), s: s, maxDur: maxDur };
		});
		return n;
	}

	/* "in capture window 2 at +100 µs" for time t (ns from t0), "" outside
	 * the windows or in a trace recorded whole (render_html.c names the
	 * largest gaps the same way) */
	function windowAt(run, t) {
		var w = run.data.capture ? run.data.capture.windows : [];
		for (var i = 0; i < w.length; i++)
			if (t >= w[i][0] && t < w[i][1])
				return 'in capture window ' + (i + 1) + ' at +' + fmt(t - w[i][0]);
		return '';
	}

	/* the tooltip of a hatched span: which windows it lies between */
	function unrecText(run, u) {
		var w = run.data.capture.windows, k = 0, where;
		while (k < w.length && w[k][1] <= u[0]) k++;
		where = !w.length ? 'no capture window was recorded'
			: k === 0 ? 'before capture window 1'
			: k === w.length ? 'after capture window ' + k
			: 'between capture windows ' + k + ' and ' + (k + 1);
		return 'not recorded: ' + where + '\n' + fmt(u[1] - u[0]) + ' from ' + fmt(u[0]) +
			' to ' + fmt(u[1]) + '\nonly the capture windows (record --capture-range) ' +
			'were recorded: this is no idle GPU, and no figure counts it';
	}

	function str(run, id) {
		var s = run.data.strings[id];
		return s === null || s === undefined ? '' : s;
	}

	function eventColor(row, i) {
		var d = row.d, st = STRIDE[row.k];
		switch (row.k) {
		case 'gap': return CAUSE_COLORS[d[i * st + 3]] || '#999';
		case 'ops': return OP_COLORS[d[i * st + 3]] || '#999';
		case 'api': return '#9aa5b8';
		case 'sync': return '#9467bd';
		default: return d[i * st + 3] ? '#0b6f7a' : '#17becf';
		}
	}

	function eventText(run, row, i) {
		var d = row.d, st = STRIDE[row.k], b = i * st;
		var when = 'start ' + fmt(row.starts[i]) + ', duration ' + fmt(row.ends[i] - row.starts[i]);
		var win = windowAt(run, row.starts[i]);
		switch (row.k) {
		case 'gap':
			return 'idle ' + fmt(row.ends[i] - row.starts[i]) + ' \u00b7 ' +
				(CAUSES[d[b + 3]] || '?') + '\nbefore ' + opName(run, d[b + 2], d[b + 9]) +
				'\n' + segments(row, i) + '\n' + when + (win ? '\n' + win : '') +
				'\nclick for the explanation';
		case 'ops':
			return str(run, d[b + 2]) + '\n' + (OP_KINDS[d[b + 3]] || '') + ' \u00b7 ' + when;
		case 'api':
			return str(run, d[b + 2]) + '\n' + when;
		case 'sync':
			return (run.data.syncKinds[d[b + 3]] || 'sync') + ' \u00b7 ' +
				str(run, d[b + 2]) + '\n' + callSite(run, row, i) + when;
		default:
			return (d[b + 3] ? 'NVTX mark: ' : 'NVTX range: ') + str(run, d[b + 2]) + '\n' + when;
		}
	}

	/* a sync's call site line, "" when none was recorded (render_html.c:
	 * the row's "s" indexes the block's "sites") */
	function callSite(run, row, i) {
		var k = row.s ? row.s[i] : -1;
		var t = k >= 0 && run.data.sites ? run.data.sites[k] : '';
		return t ? 'at ' + t + '\n' : '';
	}

	function opName(run, nameId, kind) {
		if (kind === 0) return 'kernel ' + str(run, nameId);
		return OP_KINDS[kind] || 'op';
	}

	/* the gap's segments (gap model v2), as render_html.c wrote them */
	function segments(row, i) {
		return (row.t && row.t[i]) || '';
	}

	/* Why the GPU was idle, for one gap (gap model v2, DESIGN.md): its
	 * segments, then what its largest segment's cause means. */
	function explainGap(run, row, i) {
		var d = row.d, b = i * 10, cause = d[b + 3], ek = d[b + 4];
		var op = opName(run, d[b + 2], d[b + 9]);
		var call = str(run, d[b + 5]) || 'an API call';
		var tid = d[b + 6], cs = d[b + 7], ce = d[b + 8];
		var span = cs >= 0 ? ' (' + fmt(cs) + ' \u2192 ' + fmt(ce) + ')' : '';
		var head = 'Idle ' + fmt(row.ends[i] - row.starts[i]) + ' from ' + fmt(row.starts[i]) +
			' to ' + fmt(row.ends[i]) + ' before ' + op + ' \u2014 mostly ' +
			(CAUSES[cause] || '?') + '\n' + segments(row, i) + '\n';
		var late = 'The launch call ' + call + ' on thread ' + tid + span +
			' began only after the GPU had gone idle: the host was late. ';
		switch (cause) {
		case 0:
			return head + late + 'Most of the wait the thread was blocked in a ' +
				'synchronising call that returned before it launched ' + op + '.';
		case 1:
			return head + late + 'Most of the wait the thread was inside other CUDA ' +
				'calls before it launched ' + op + '.';
		case 2:
			return head + late + 'Most of the wait the thread ran the program\'s own ' +
				'code (no CUDA call) before it launched ' + op + '.';
		case 3:
			if (ek === 6)
				return head + op + ' was launched before the trace began (its call is ' +
					'not in the trace): it sat queued, and the gap is its dispatch.';
			if (ek === 1 && cs >= 0 && cs < row.starts[i])
				return head + 'The launch call ' + call + ' on thread ' + tid + span +
					' was made before the GPU went idle, yet ' + op + ' started only ' +
					'after: submission and dispatch latency.';
			return head + late + 'Most of the wait was the launch itself: the call ' +
				'and the queueing until ' + op + ' started.';
		case 4:
			return head + op + ' and the op before it belong to one graph launch (' +
				call + span + '): the gap is node dispatch inside the graph.';
		case 5:
			if (ek === 3)
				return head + op + ' waited on an event (' + call + span + ') of another ' +
					'stream or device.';
			if (ek === 4)
				return head + op + ' waited for a host function or callback (' + call +
					span + ').';
			return head + op + ' follows a host node of its CUDA graph.';
		default:
			if (ek === 1)
				return head + op + ' was queued by ' + call + span + ' before the GPU ' +
					'went idle, yet started more than 100 \u00b5s after with no wait ' +
					'recorded: something the trace does not hold held it.';
			if (ek === 6)
				return head + op + ' was launched before the trace began and started ' +
					'more than 100 \u00b5s after the GPU went idle with no wait recorded: ' +
					'something the trace does not hold held it.';
			return head + 'No launch call was recorded for ' + op + ' (another process, or ' +
				'missing API records): gapscope does not guess a cause.';
		}
	}

	function Timeline(run, box) {
		this.run = run;
		this.box = box;
		this.svg = box.querySelector('svg');
		this.explain = document.getElementById('explain-' + run.index);
		var whole = [0, Math.max(run.data.span, 1)], view = run.data.view || whole;
		var home = view[1] > view[0] ? [view[0], view[1]] : whole;
		this.v0 = openAll ? whole[0] : home[0];
		this.v1 = openAll ? whole[1] : home[1];
		this.info = [];
		this.pending = false;
		var self = this, drag = null;
		this.svg.addEventListener('wheel', function (e) {
			e.preventDefault();
			var t = self.timeAt(e.clientX), f = Math.pow(1.0015, e.deltaY);
			var w = Math.max((self.v1 - self.v0) * f, 50);
			var frac = (t - self.v0) / (self.v1 - self.v0);
			self.v0 = t - frac * w;
			self.v1 = self.v0 + w;
			self.schedule();
		}, { passive: false });
		this.svg.addEventListener('mousedown', function (e) {
			drag = { x: e.clientX, v0: self.v0, v1: self.v1, moved: false };
			self.svg.classList.add('drag');
		});
		window.addEventListener('mousemove', function (e) {
			if (!drag) return;
			var dt = (e.clientX - drag.x) / self.scale();
			if (Math.abs(e.clientX - drag.x) > 2) drag.moved = true;
			self.v0 = drag.v0 - dt;
			self.v1 = drag.v1 - dt;
			self.schedule();
		});
		window.addEventListener('mouseup', function () {
			if (drag) {
				self.svg.classList.remove('drag');
				self.wasDrag = drag.moved;
			}
			drag = null;
		});
		/* whole trace, or back to the home view when already there */
		this.svg.addEventListener('dblclick', function () {
			var atWhole = self.v0 === whole[0] && self.v1 === whole[1];
			var to = atWhole ? home : whole;
			self.v0 = to[0];
			self.v1 = to[1];
			self.schedule();
		});
		this.svg.addEventListener('mousemove', function (e) { self.tip(e); });
		this.svg.addEventListener('mouseleave', function () { tipEl.style.display = 'none'; });
		this.svg.addEventListener('click', function (e) {
			if (self.wasDrag) { self.wasDrag = false; return; }
			var k = e.target.getAttribute && e.target.getAttribute('data-k');
			if (k === null || !self.info[k]) return;
			var it = self.info[k], row = run.data.rows[it.row];
			if (row.k === 'gap' && it.count === 1) {
				self.explain.textContent = explainGap(run, row, it.i);
				self.explain.style.display = 'block';
			}
		});
	}

	Timeline.prototype.plotWidth = function () {
		if (forcedWidth) return +forcedWidth;
		return Math.max((this.box.clientWidth || 1000) - LABEL_W - 10, 100);
	};
	Timeline.prototype.scale = function () {
		return this.plotWidth() / (this.v1 - this.v0);
	};
	Timeline.prototype.timeAt = function (clientX) {
		var r = this.svg.getBoundingClientRect();
		return this.v0 + (clientX - r.left - LABEL_W) / this.scale();
	};
	Timeline.prototype.schedule = function () {
		var self = this;
		if (this.pending) return;
		this.pending = true;
		requestAnimationFrame(function () { self.pending = false; self.draw(); });
	};

	function el(name, attrs, parent) {
		var e = document.createElementNS(SVGNS, name);
		for (var a in attrs) e.setAttribute(a, attrs[a]);
		if (parent) parent.appendChild(e);
		return e;
	}

	/* Put text into an SVG text element, cutting the middle (thread names
	 * are long, the "· CUDA API" kind at the end matters) until it fits. */
	function fitLabel(node, text, maxW) {
		node.textContent = text;
		if (!node.getComputedTextLength || node.getComputedTextLength() <= maxW) return;
		var tail = text.lastIndexOf(' \u00b7 '), keep = tail > 0 ? text.slice(tail) : '';
		var head = tail > 0 ? text.slice(0, tail) : text;
		while (head.length > 1) {
			head = head.slice(0, -1);
			node.textContent = head + '\u2026' + keep;
			if (node.getComputedTextLength() <= maxW) return;
		}
	}

	/* Draw the visible window. Returns the number of event rects.
	 * The rects are built as one markup string holding only numbers and
	 * our own colours (several times faster than createElementNS per
	 * rect); the only trace strings, the row labels, go in by textContent.
	 * A merged pixel column takes the colour of its longest event and an
	 * opacity that shows how much of the column its events cover. */
	Timeline.prototype.draw = function () {
		var run = this.run, rows = run.data.rows, W = this.plotWidth();
		var v0 = this.v0, v1 = this.v1, scale = W / (v1 - v0);
		var svg = this.svg, y = AXIS_H, nrects = 0, info = [], parts = [], names = [];
		var bgs = [], unrec = run.data.capture ? run.data.capture.unrecorded : [];
		var g, labels, r, l, height = AXIS_H, H = LANE_H - 2;
		for (r = 0; r < rows.length; r++) height += rows[r].lanes.length * LANE_H + ROW_GAP;
		while (svg.firstChild) svg.removeChild(svg.firstChild);
		svg.setAttribute('width', LABEL_W + W + 10);
		svg.setAttribute('height', height);
		svg.setAttribute('viewBox', '0 0 ' + (LABEL_W + W + 10) + ' ' + height);
		this.drawAxis(svg, W, v0, v1, height);
		labels = el('g', {}, svg);
		g = el('g', { transform: 'translate(' + LABEL_W + ',0)' }, svg);
		for (r = 0; r < rows.length; r++) {
			var row = rows[r], rh = row.lanes.length * LANE_H;
			var label = el('text', { x: 4, y: y + 10, 'font-size': 11, fill: '#333' }, labels);
			fitLabel(label, row.name, LABEL_W - 8);
			bgs.push('<rect x="0" y="' + y + '" width="' + W + '" height="' + rh +
				 '" fill="' + (r % 2 ? '#fbfbfb' : '#f3f5f8') + '"/>');
			for (l = 0; l < row.lanes.length; l++) {
				var lane = row.lanes[l], ly = y + l * LANE_H + 1, m = lane.s.length;
				var i = lowerBound(lane.s, m, v0 - lane.maxDur);
				var aCol = -2, aI = 0, aN = 0, aT0 = 0, aT1 = 0, aMax = -1, aBusy = 0;
				for (; ; i++) {
					var more = i < m && lane.s[i] <= v1, ei = 0, s = 0, e = 0, x0 = 0, x1 = 0;
					if (more) {
						ei = lane.idx[i];
						s = row.starts[ei];
						e = row.ends[ei];
						if (e < v0) continue;
						x0 = (s - v0) * scale;
						x1 = (e - v0) * scale;
						if (x1 - x0 < 1 && Math.floor(x0) === aCol) {
							aN++;
							aBusy += e - s;
							if (e > aT1) aT1 = e;
							if (e - s > aMax) { aMax = e - s; aI = ei; }
							continue;
						}
					}
					if (aN) { /* flush the merged column */
						parts.push('<rect x="' + aCol + '" y="' + ly + '" width="1" height="' + H +
							   '" fill="' + eventColor(row, aI) + '" fill-opacity="' +
							   Math.max(0.3, Math.min(1, aBusy * scale)).toFixed(2) +
							   '" data-k="' + info.length + '"/>');
						info.push({ row: r, i: aI, count: aN, t0: aT0, t1: aT1 });
						nrects++;
						aN = 0;
						aCol = -2;
					}
					if (!more) break;
					if (x1 - x0 < 1) { /* start a merged column */
						aCol = Math.floor(x0);
						aN = 1;
						aI = ei;
						aT0 = s;
						aT1 = e;
						aMax = e - s;
						aBusy = e - s;
						continue;
					}
					x0 = Math.max(x0, -1);
					x1 = Math.min(x1, W + 1);
					parts.push('<rect x="' + x0.toFixed(1) + '" y="' + ly + '" width="' +
						   (x1 - x0).toFixed(1) + '" height="' + H + '" fill="' +
						   eventColor(row, ei) + '" data-k="' + info.length + '"' +
						   (row.k === 'nvtx' ? ' stroke="#fff" stroke-width="1"' : '') +
						   '/>');
					/* an NVTX range wide enough gets its text: phases that
					 * follow each other would otherwise read as one bar */
					if (row.k === 'nvtx' && x1 - x0 >= 40)
						names.push({ x: Math.max(x0, 0) + 3, y: ly + H - 2,
							     w: Math.min(x1, W) - Math.max(x0, 0) - 6,
							     text: str(run, row.d[ei * STRIDE.nvtx + 2]) });
					info.push({ row: r, i: ei, count: 1 });
					nrects++;
				}
			}
			y += rh + ROW_GAP;
		}
		/* the not-recorded spans over the row backgrounds, under the
		 * events: hatched across every row, their label in the first */
		var hatch = [], nunrec = 0, top = AXIS_H, hh = height - AXIS_H;
		for (var u = 0; u < unrec.length; u++) {
			var ux0 = (unrec[u][0] - v0) * scale, ux1 = (unrec[u][1] - v0) * scale;
			if (ux1 < 0 || ux0 > W) continue;
			ux0 = Math.max(ux0, -1);
			ux1 = Math.min(ux1, W + 1);
			if (ux1 - ux0 < 1) ux1 = ux0 + 1;
			hatch.push('<rect class="unrec" x="' + ux0.toFixed(1) + '" y="' + top +
				   '" width="' + (ux1 - ux0).toFixed(1) + '" height="' + hh +
				   '" fill="#ececec" data-u="' + u + '"/>');
			/* the hatch: lines x + (y - top) = c every 7 px, cut to the
			 * rect (no SVG pattern: its fill would refer to it by URL,
			 * and the page refers to nothing) */
			var d = [];
			for (var c = Math.ceil(ux0 / 7) * 7; c < ux1 + hh; c += 7) {
				var lo = Math.max(0, c - ux1), hi = Math.min(hh, c - ux0);
				if (hi > lo)
					d.push('M' + (c - lo).toFixed(1) + ' ' + (top + lo).toFixed(1) + 'L' +
					       (c - hi).toFixed(1) + ' ' + (top + hi).toFixed(1));
			}
			if (d.length)
				hatch.push('<path d="' + d.join('') + '" stroke="#bdbdbd" ' +
					   'stroke-width="1.5" pointer-events="none"/>');
			if (ux1 - ux0 >= 90)
				hatch.push('<text x="' + ((ux0 + ux1) / 2).toFixed(1) + '" y="' +
					   (top + 11) + '" font-size="10" fill="#444" ' +
					   'text-anchor="middle" pointer-events="none" ' +
					   'style="paint-order:stroke" stroke="#ececec" stroke-width="3">' +
					   'not recorded</text>');
			nunrec++;
		}
		g.innerHTML = bgs.join('') + hatch.join('') + parts.join('');
		/* trace text only through textContent, cut to the range's width
		 * (about 6 px a character at 10 px); pointer-events off so hover
		 * and click reach the rect underneath */
		for (var n = 0; n < names.length; n++) {
			var nm = names[n], max = Math.floor(nm.w / 6);
			if (max < 3) continue;
			var t = el('text', { x: nm.x, y: nm.y, 'font-size': 10, fill: '#fff',
					     'pointer-events': 'none' }, g);
			t.textContent = nm.text.length > max ? nm.text.slice(0, max - 1) + '\u2026' : nm.text;
		}
		this.info = info;
		this.nrects = nrects;
		this.nunrec = nunrec;
		return nrects;
	};

	Timeline.prototype.drawAxis = function (svg, W, v0, v1, height) {
		var span = v1 - v0, step = Math.pow(10, Math.floor(Math.log10(span / 8)));
		if (span / step > 16) step *= 5; else if (span / step > 8) step *= 2;
		var t = Math.ceil(v0 / step) * step;
		for (; t <= v1; t += step) {
			var x = LABEL_W + (t - v0) * W / span;
			el('line', { x1: x, x2: x, y1: AXIS_H - 4, y2: height, stroke: '#e2e2e2' }, svg);
			if (x > LABEL_W + W - 40) continue; /* its label would be cut off */
			var tx = el('text', { x: x + 2, y: 12, 'font-size': 10, fill: '#555' }, svg);
			tx.textContent = fmt(t);
		}
	};

	var tipEl = document.createElement('div');
	tipEl.id = 'gs-tip';
	body.appendChild(tipEl);

	Timeline.prototype.tip = function (e) {
		var k = e.target.getAttribute && e.target.getAttribute('data-k');
		var u = e.target.getAttribute && e.target.getAttribute('data-u');
		var unrec = this.run.data.capture ? this.run.data.capture.unrecorded : [];
		if (u !== null && u !== undefined && unrec[u]) {
			tipEl.textContent = unrecText(this.run, unrec[u]);
		} else if (k === null || !this.info[k]) {
			tipEl.style.display = 'none';
			return;
		} else {
			var it = this.info[k], row = this.run.data.rows[it.row];
			tipEl.textContent = it.count > 1
				? it.count + ' events merged at this zoom (zoom in to separate)\n' +
				  row.name + '\nfrom ' + fmt(it.t0) + ' to ' + fmt(it.t1) + '\nfirst: ' +
				  eventText(this.run, row, it.i)
				: row.name + '\n' + eventText(this.run, row, it.i);
		}
		tipEl.style.display = 'block';
		tipEl.style.left = Math.min(e.clientX + 14, window.innerWidth - 360) + 'px';
		tipEl.style.top = (e.clientY + 14) + 'px';
	};

	try {
		var blocks = document.querySelectorAll('script.gs-data'), total = 0, rects = 0;
		var unrecs = 0;
		var t0 = performance.now();
		for (var b = 0; b < blocks.length; b++) {
			var run = { index: +blocks[b].getAttribute('data-run'),
				    data: JSON.parse(blocks[b].textContent) };
			for (var r = 0; r < run.data.rows.length; r++) {
				var row = run.data.rows[r];
				row.name = row.n;
				total += decodeRow(row);
			}
			var box = document.querySelector('.timeline[data-run="' + run.index + '"]');
			var tl = new Timeline(run, box);
			rects += tl.draw();
			unrecs += tl.nunrec;
		}
		body.setAttribute('data-events', total);
		body.setAttribute('data-rects', rects);
		body.setAttribute('data-unrec', unrecs);
		/* decode + first draw, for the benchmark's eyes only */
		body.setAttribute('data-draw-ms', Math.round(performance.now() - t0));
		body.setAttribute('data-status', 'ok');
		/* "#probe": hover and click the first event of the first row (an
		 * idle gap), so a headless test can read the tooltip and the
		 * explanation back from the DOM */
		if (/[#&]probe/.test(location.hash)) {
			/* "#probe-unrec": the first hatched not-recorded span instead */
			var first = document.querySelector(/[#&]probe-unrec/.test(location.hash)
				? '.timeline svg rect.unrec' : '.timeline svg rect[data-k]');
			if (first) {
				first.dispatchEvent(new MouseEvent('mousemove', { bubbles: true }));
				first.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			}
		}
	} catch (err) {
		body.setAttribute('data-status', 'error: ' + err.message);
		throw err;
	}
})();
