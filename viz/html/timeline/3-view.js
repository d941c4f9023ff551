// viz/html/timeline/3-view.js: part 3 of the timeline's script.  The parts in viz/html/timeline/ are
// one script, split by concern: the Makefile joins them in order into
// $(BUILD)/viz_html/timeline.js, dropping these leading // lines, and
// viz/html.c inlines it into the page.
// Inside main(): the tracks' level of detail (pyramid levels, detail
// windows, rasterising into pixel columns), the rows' layout and the view
// state (time window, zoom, pan).
    /* ------------------------------------------------------------------ tracks and level of detail */

    const TRACKS = D.tracks.map(function (t, i) {
      return { i: i, t: t, type: t.type, w: t.w, o: t.o, kmin: t.kmin, ktop: t.ktop, cache: {}, detail: null };
    });
    const WINDOWS = M.lod.windows;

    /* Decoded level K of track TR (exact: K = 0, or 'detail'). */
    function getLevel(tr, k) {
      if (tr.cache[k]) return tr.cache[k];
      let L;
      if (k === 'detail') L = tr.t.detail;
      else L = tr.t.levels[k - tr.kmin];
      if (!L) return null;
      const n = L.n;
      const out = { k: L.k, n: n, v: [] };
      if (L.k === 0) {
        if (tr.type === 'ctr') {
          out.s = dec(L.s, n, true);
        } else {
          out.idx = dec(L.i, n, true);
        }
      } else {
        out.idx = dec(L.i, n, true);
      }
      for (const c of L.v) out.v.push(dec(c, n));
      if (out.k === 0 && tr.type === 'ctr') {
        out.e = new Float64Array(n);
        for (let i = 0; i < n; i++) out.e[i] = out.s[i] + out.v[0][i];
      }
      tr.cache[k] = out;
      return out;
    }

    function lowerBound(arr, x, n) {
      let lo = 0, hi = n === undefined ? arr.length : n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (arr[mid] < x) lo = mid + 1; else hi = mid;
      }
      return lo;
    }

    /* the value plotted by a sample of level L (exact or pyramid) */
    function cellVals(tr, L, j, out) {
      const v = L.v;
      if (tr.type === 'tp') {
        if (L.k === 0) { out.max = out.min = out.mean = v[0][j]; out.sec = 0; } else {
          out.max = v[0][j]; out.min = v[1][j]; out.mean = v[2][j] / Math.pow(2, L.k); out.sec = 0;
        }
        const f = 8e9 / tr.w; /* bytes per bin -> bit/s */
        out.max *= f; out.min *= f; out.mean *= f;
      } else if (tr.type === 'q') {
        if (L.k === 0) { out.max = out.min = out.mean = v[0][j]; out.sec = v[2][j]; } else {
          out.max = v[0][j]; out.min = 0; out.mean = v[0][j]; out.sec = v[1][j];
        }
      } else {
        if (L.k === 0) { out.max = out.min = out.mean = v[3][j]; out.sec = 0; } else {
          out.max = v[0][j]; out.min = v[1][j]; out.mean = v[2][j] * 1e9 / (tr.w * Math.pow(2, L.k)); out.sec = 0;
        }
      }
    }

    /* Cells of level L in [a, b): calls fn(t0, t1, j). */
    function eachCell(tr, L, a, b, fn) {
      if (!L || !L.n) return;
      if (L.k === 0 && tr.type === 'ctr') {
        /* exact counter intervals: sorted by start, bounded duration (the group period, mostly) */
        let j = lowerBound(L.s, a - 10 * tr.w, L.n);
        for (; j < L.n && L.s[j] < b; j++) if (L.e[j] > a) fn(L.s[j], L.e[j], j);
        return;
      }
      const cw = tr.w * Math.pow(2, L.k);
      const i0 = Math.floor((a - tr.o) / cw);
      let j = lowerBound(L.idx, i0, L.n);
      for (; j < L.n; j++) {
        const t0 = tr.o + L.idx[j] * cw;
        if (t0 >= b) break;
        fn(t0, t0 + cw, j);
      }
    }

    /* Which levels draw [a, b) at NSPX ns per pixel: [{L, a, b}] (detail windows replace the coarse level). */
    function plan(tr, a, b, nspx) {
      let k = Math.floor(Math.log2(Math.max(1, nspx / tr.w)));
      if (k > tr.ktop) k = tr.ktop;
      const exact = k < tr.kmin;
      if (k < tr.kmin) k = tr.kmin;
      const base = getLevel(tr, k);
      const parts = [{ L: base, a: a, b: b, exact: base && base.k === 0 }];
      if (exact && tr.kmin > 0 && tr.t.detail && tr.t.detail.n) {
        const det = getLevel(tr, 'detail');
        for (const w of WINDOWS) {
          if (w[1] <= a || w[0] >= b) continue;
          parts.push({ L: det, a: Math.max(a, w[0]), b: Math.min(b, w[1]), exact: true, window: true });
        }
      }
      return parts;
    }

    const tmpCell = { max: 0, min: 0, mean: 0, sec: 0 };
    /* Rasterise a track into per-pixel columns: max/min/mean (+ secondary). */
    function raster(tr, a, b, W, buf) {
      const nspx = (b - a) / W;
      buf.max.fill(NaN, 0, W); buf.min.fill(NaN, 0, W); buf.mean.fill(NaN, 0, W); buf.sec.fill(NaN, 0, W);
      buf.exact = false; buf.kshown = null; buf.windows = [];
      const parts = plan(tr, a, b, nspx);
      for (const p of parts) {
        if (!p.L) continue;
        const x0 = Math.max(0, Math.floor((p.a - a) / nspx)), x1 = Math.min(W, Math.ceil((p.b - a) / nspx));
        if (p.window) {
          /* exact data replaces the coarse cells here: idle unless a bin says otherwise */
          buf.max.fill(NaN, x0, x1); buf.min.fill(NaN, x0, x1); buf.mean.fill(NaN, x0, x1); buf.sec.fill(NaN, x0, x1);
          buf.windows.push([x0, x1]);
        } else {
          buf.exact = p.exact; buf.kshown = p.L.k;
        }
        eachCell(tr, p.L, p.a, p.b, function (t0, t1, j) {
          cellVals(tr, p.L, j, tmpCell);
          let xa = Math.floor((t0 - a) / nspx), xb = Math.ceil((t1 - a) / nspx);
          if (xb <= xa) xb = xa + 1;
          if (xa < x0) xa = x0;
          if (xb > x1) xb = x1;
          for (let x = xa; x < xb; x++) {
            if (!(buf.max[x] >= tmpCell.max)) buf.max[x] = tmpCell.max;
            if (!(buf.min[x] <= tmpCell.min)) buf.min[x] = tmpCell.min;
            if (!(buf.mean[x] >= tmpCell.mean)) buf.mean[x] = tmpCell.mean;
            if (!(buf.sec[x] >= tmpCell.sec)) buf.sec[x] = tmpCell.sec;
          }
        });
      }
      return buf;
    }

    /* The sample under time T (for tooltips): {t0, t1, vals, exact, k} or null. */
    function sampleAt(tr, t, nspx) {
      const parts = plan(tr, t - nspx / 2, t + nspx / 2, nspx);
      let best = null;
      for (let pi = parts.length - 1; pi >= 0 && !best; pi--) {
        const p = parts[pi];
        if (!p.L || t < p.a - nspx || t > p.b + nspx) continue;
        eachCell(tr, p.L, t - nspx, t + nspx, function (t0, t1, j) {
          const d = t < t0 ? t0 - t : t > t1 ? t - t1 : 0;
          if (!best || d < best.d) best = { d: d, t0: t0, t1: t1, j: j, L: p.L };
        });
        if (p.window && !best) return { idle: true, exact: true };
      }
      if (!best || best.d > nspx) return null;
      return best;
    }

    /* ------------------------------------------------------------------ layout */

    const ROW_H = 17, SUB_H = 6, GUTTER = 210, OVER_H = 34, AXIS_H = 22, TOP_H = OVER_H + AXIS_H;
    const rows = [];
    function addRow(r) { rows.push(r); return r; }

    (function layout() {
      if (NR) {
        addRow({ type: 'section', h: 20, label: 'Collectives by host and rank' + (M.enqueue_only ? ' (NCCL: enqueue times)' : '') });
        const hosts = [];
        const byHost = new Map();
        for (const rr of R) {
          const h = rr.r.host || '-';
          if (!byHost.has(h)) { byHost.set(h, []); hosts.push(h); }
          byHost.get(h).push(rr);
        }
        for (const h of hosts) {
          addRow({ type: 'host', h: 16, label: h });
          for (const rr of byHost.get(h)) {
            rr.row = addRow({ type: 'rank', h: rr.depths * ROW_H + SUB_H + 3, rr: rr,
              label: rankName(rr.i), sub: 'pid ' + rr.r.pid + ' ' + rr.r.comm });
          }
        }
      }
      if (INF.n) {
        addRow({ type: 'section', h: 20, label: 'Inferred collective phases (from traffic alone)' });
        addRow({ type: 'inferred', h: 16, label: 'inferred phases' });
        for (const a of INF.act) addRow({ type: 'activity', h: 13, act: a, label: 'active: ' + a.name });
      }
      addRow({ type: 'section', h: 20, label: 'Events' });
      addRow({ type: 'events', h: 48, label: 'events' });
      const tp = TRACKS.filter(function (t) { return t.type === 'tp'; });
      if (tp.length) {
        addRow({ type: 'section', h: 20, label: 'Throughput per interface (TX up, RX down)' });
        const byIf = new Map();
        for (const t of tp) {
          if (!byIf.has(t.t.ref)) byIf.set(t.t.ref, [null, null]);
          byIf.get(t.t.ref)[t.t.dir] = t;
        }
        for (const [ifi, pair] of byIf) {
          const f = D.ifaces[ifi];
          addRow({ type: 'tp', h: 50, iface: ifi, rx: pair[0], tx: pair[1], label: f.label, sub: 'TX \u25b2  RX \u25bc' });
        }
      }
      const q = TRACKS.filter(function (t) { return t.type === 'q'; });
      if (q.length) {
        addRow({ type: 'section', h: 20, label: 'Queues (backlog, sojourn time)' });
        for (const t of q) {
          const qd = D.qdiscs[t.t.ref];
          const f = D.ifaces[qd.iface];
          addRow({ type: 'q', h: 40, tr: t, label: qd.kind + ' ' + (qd.handle >>> 16).toString(16) + ': on ' + (f ? f.label : '?'), sub: 'backlog (area), sojourn max (line)' });
        }
      }
      const cs = TRACKS.filter(function (t) { return t.type === 'ctr'; });
      if (cs.length) {
        addRow({ type: 'section', h: 20, label: 'Counters (rates)' });
        for (const t of cs) {
          const s = D.ctr_series[t.t.ref];
          const g = D.ctr_groups[s.group] || { label: '?' };
          addRow({ type: 'ctr', h: 32, tr: t, series: s, label: s.name, sub: g.label + ' \u00b7 ' + (CLS_NAMES[s.cls] || 'other') });
        }
      } else {
        addRow({ type: 'section', h: 20, label: 'Counters: none in this capture (no RDMA/NIC counter sampler)' });
      }
      let y = 0;
      for (const r of rows) { r.y = y; y += r.h; }
    })();
    const ROWS_H = rows.reduce(function (s, r) { return s + r.h; }, 0);

    /* ------------------------------------------------------------------ view state */

    const el = function (id) { return document.getElementById(id); };
    const canvas = el('ft-canvas'), scroller = el('ft-scroll'), spacer = el('ft-spacer');
    const ctx = canvas.getContext('2d');
    let cssW = 800, cssH = 600, dpr = 1;
    const view = { from: M.view[0], to: M.view[1] };
    const MIN_SPAN = 1000; /* 1 us */
    let selected = null;   /* {kind: 'inst'|'call'|'span', i} */
    let hover = null;      /* hit under the pointer */
    let drag = null;
    let lastDrawMs = 0, drawCount = 0;
    let flashRank = -1, flashUntil = 0;

    function plotW() { return Math.max(10, cssW - GUTTER); }
    function nsPerPx() { return (view.to - view.from) / plotW(); }
    function xOf(t) { return GUTTER + (t - view.from) / (view.to - view.from) * plotW(); }
    function tOf(x) { return view.from + (x - GUTTER) / plotW() * (view.to - view.from); }
    function scrollY() { return scroller.scrollTop; }

    function setView(a, b) {
      let span = b - a;
      if (!(span > 0)) return;
      const lo = -0.02 * DUR, hi = DUR * 1.02;
      if (span < MIN_SPAN) { const c = (a + b) / 2; a = c - MIN_SPAN / 2; b = c + MIN_SPAN / 2; span = MIN_SPAN; }
      if (span > hi - lo) { a = lo; b = hi; }
      if (a < lo) { b += lo - a; a = lo; }
      if (b > hi) { a -= b - hi; b = hi; }
      view.from = a; view.to = b;
      requestDraw();
    }
    function zoom(f, center) {
      const c = center === undefined ? (view.from + view.to) / 2 : center;
      setView(c - (c - view.from) / f, c + (view.to - c) / f);
    }
    function pan(dt) { setView(view.from + dt, view.to + dt); }
    function resetView() { setView(0, DUR); }

