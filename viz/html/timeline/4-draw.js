// viz/html/timeline/4-draw.js: part 4 of the timeline's script.  The parts in viz/html/timeline/ are
// one script, split by concern: the Makefile joins them in order into
// $(BUILD)/viz_html/timeline.js, dropping these leading // lines, and
// viz/html.c inlines it into the page.
// Inside main(): drawing on the canvas: overview, time axis, flame chart
// of ranks and collectives, event lanes, throughput / queue / counter
// tracks, lost-event gaps, selection guides; draw() puts it together.
    /* ------------------------------------------------------------------ drawing */

    let pending = false;
    function requestDraw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    }

    function resize() {
      dpr = window.devicePixelRatio || 1;
      cssW = scroller.clientWidth;
      cssH = scroller.clientHeight;
      canvas.style.height = cssH + 'px';
      canvas.width = Math.round(cssW * dpr);
      canvas.height = Math.round(cssH * dpr);
      spacer.style.height = Math.max(0, ROWS_H - (cssH - TOP_H)) + 'px';
      buildOverview();
      draw();
    }

    const rbuf = { max: new Float64Array(8192), min: new Float64Array(8192), mean: new Float64Array(8192), sec: new Float64Array(8192) };
    const rbuf2 = { max: new Float64Array(8192), min: new Float64Array(8192), mean: new Float64Array(8192), sec: new Float64Array(8192) };

    function niceTicks(a, b, n) {
      const span = b - a, raw = span / n;
      const p = Math.pow(10, Math.floor(Math.log10(raw)));
      const m = raw / p;
      const step = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
      const out = [];
      for (let t = Math.ceil(a / step) * step; t <= b; t += step) out.push(t);
      return { ticks: out, step: step };
    }
    function tickLabel(t, step) {
      const s = t / 1e9;
      const d = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / 1e9) - 1e-9)));
      return '+' + s.toFixed(d) + ' s';
    }

    let overviewCanvas = null;
    function buildOverview() {
      const W = plotW();
      overviewCanvas = document.createElement('canvas');
      overviewCanvas.width = Math.round(W * dpr);
      overviewCanvas.height = Math.round((OVER_H - 4) * dpr);
      const o = overviewCanvas.getContext('2d');
      o.scale(dpr, dpr);
      const H = OVER_H - 4;
      const sum = new Float64Array(W);
      for (const tr of TRACKS) {
        if (tr.type !== 'tp' || tr.t.dir !== 1) continue;
        const L = getLevel(tr, tr.ktop > tr.kmin ? tr.ktop : tr.kmin);
        const nspx = DUR / W;
        eachCell(tr, L, 0, DUR, function (t0, t1, j) {
          cellVals(tr, L, j, tmpCell);
          const xa = Math.max(0, Math.floor(t0 / nspx)), xb = Math.min(W, Math.max(xa + 1, Math.ceil(t1 / nspx)));
          for (let x = xa; x < xb; x++) sum[x] += tmpCell.mean;
        });
      }
      let mx = 0;
      for (let x = 0; x < W; x++) if (sum[x] > mx) mx = sum[x];
      o.fillStyle = '#F1F1EE';
      o.fillRect(0, 0, W, H);
      if (mx > 0) {
        o.fillStyle = 'rgba(0,114,178,0.45)';
        for (let x = 0; x < W; x++) if (sum[x] > 0) { const hh = Math.max(1, sum[x] / mx * (H - 8)); o.fillRect(x, H - hh, 1, hh); }
      }
      for (let i = 0; i < I.n; i++) {
        const x = Math.floor(I.fe[i] / DUR * W);
        o.fillStyle = VERDICT_COLORS[I.verdict[i]];
        o.fillRect(x, 0, Math.max(1, I.lx[i] / DUR * W), I.verdict[i] ? 6 : 3);
      }
      for (const g of EV.lost) {
        o.fillStyle = COL.lost;
        const xa = Math.floor(g[0] / DUR * W), xb = Math.ceil(g[1] / DUR * W);
        o.fillRect(xa, 0, Math.max(2, xb - xa), H);
      }
    }

    function drawOverview() {
      const W = plotW();
      ctx.fillStyle = '#FFFFFF';
      ctx.fillRect(0, 0, cssW, OVER_H);
      ctx.fillStyle = COL.muted;
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      ctx.fillText('overview ' + fmtDur(DUR), 8, OVER_H / 2);
      if (overviewCanvas) ctx.drawImage(overviewCanvas, GUTTER, 2, W, OVER_H - 4);
      const xa = GUTTER + Math.max(0, view.from) / DUR * W, xb = GUTTER + Math.min(DUR, view.to) / DUR * W;
      ctx.fillStyle = 'rgba(0,0,0,0.10)';
      ctx.fillRect(GUTTER, 2, Math.max(0, xa - GUTTER), OVER_H - 4);
      ctx.fillRect(xb, 2, Math.max(0, GUTTER + W - xb), OVER_H - 4);
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(xa, 1.5, Math.max(2, xb - xa), OVER_H - 3);
      ctx.lineWidth = 1;
    }

    function drawAxis() {
      const y0 = OVER_H;
      ctx.fillStyle = '#FAFAF8';
      ctx.fillRect(0, y0, cssW, AXIS_H);
      ctx.strokeStyle = '#BDBDBD';
      ctx.beginPath(); ctx.moveTo(0, y0 + AXIS_H - 0.5); ctx.lineTo(cssW, y0 + AXIS_H - 0.5); ctx.stroke();
      const tk = niceTicks(view.from, view.to, Math.max(2, Math.floor(plotW() / 110)));
      ctx.fillStyle = COL.text;
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      for (const t of tk.ticks) {
        const x = Math.round(xOf(t)) + 0.5;
        ctx.strokeStyle = '#9E9E9E';
        ctx.beginPath(); ctx.moveTo(x, y0 + AXIS_H - 6); ctx.lineTo(x, y0 + AXIS_H); ctx.stroke();
        ctx.fillText(tickLabel(t, tk.step), x + 3, y0 + AXIS_H / 2 - 1);
      }
      ctx.fillStyle = COL.muted;
      ctx.fillText(fmtDur(view.to - view.from) + ' shown', 8, y0 + AXIS_H / 2);
      return tk;
    }

    function clipRect(x, y, w, h) { ctx.save(); ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip(); }

    function textIn(s, x, y, w) {
      if (w < 18) return;
      const m = ctx.measureText(s).width;
      if (m <= w - 4) { ctx.fillText(s, x + 2, y); return; }
      let n = Math.floor(s.length * (w - 4) / m) - 1;
      if (n >= 3) ctx.fillText(s.slice(0, n) + '\u2026', x + 2, y);
    }

    /* Items of one depth of one rank, sorted by start: jump over what shares a pixel column. */
    function byDepth(items, depthOf, startOf, durOf) {
      const lists = [];
      for (const i of items) {
        const d = depthOf(i);
        if (!lists[d]) lists[d] = { idx: [], maxDur: 0 };
        lists[d].idx.push(i);
        if (durOf(i) > lists[d].maxDur) lists[d].maxDur = durOf(i);
      }
      for (const L of lists) {
        if (!L) continue;
        L.idx = Int32Array.from(L.idx);
        L.start = Float64Array.from(L.idx, startOf);
        L.n = L.idx.length;
      }
      return lists;
    }
    for (const rr of R) {
      rr.spanLists = byDepth(rr.spans, function (i) { return S.depth[i]; }, function (i) { return S.start[i]; }, function (i) { return S.dur[i]; });
      rr.callLists = byDepth(rr.calls, function (i) { return callDepth[i]; }, function (i) { return C.start[i]; }, function (i) { return C.dur[i]; });
    }

    /*
     * Walk list L over [a, b): items at least 1.5 px wide go to drawWide(item, x0, x1);
     * narrower ones are gathered per pixel column (keeping the highest key(item) of the
     * column) and columns with the same key into runs for drawRun({key, x0, x1, i}), so a
     * zoomed-out hour costs a few rectangles, not one per item.
     */
    function walk(L, a, b, durOf, drawWide, keyOf, drawRun) {
      let run = null, cx = -1, ck = -1, ci = -1, cend = -1;
      function endColumn() {
        if (cx < 0) return;
        if (run && run.key === ck && cx <= run.x1) run.x1 = Math.max(run.x1, cend);
        else { if (run) drawRun(run); run = { key: ck, x0: cx, x1: Math.max(cx + 1, cend), i: ci }; }
        cx = -1;
      }
      for (let j = lowerBound(L.start, a - L.maxDur, L.n); j < L.n; j++) {
        const i = L.idx[j], t0 = L.start[j];
        if (t0 >= b) break;
        const t1 = t0 + durOf(i);
        if (t1 < a) continue;
        const x0 = xOf(t0), x1 = Math.max(x0 + 1, xOf(t1));
        if (x1 - x0 >= 1.5) {
          endColumn();
          if (run) { drawRun(run); run = null; }
          drawWide(i, x0, x1);
          continue;
        }
        const c0 = Math.floor(x0), k = keyOf(i);
        if (c0 !== cx) { endColumn(); cx = c0; ck = k; ci = i; cend = Math.ceil(x1); continue; }
        if (k > ck) { ck = k; ci = i; }
        if (Math.ceil(x1) > cend) cend = Math.ceil(x1);
      }
      endColumn();
      if (run) drawRun(run);
    }
    const spanDur = function (i) { return S.dur[i]; }, callDur = function (i) { return C.dur[i]; };
    /* how bad a call's collective went: 0 ok .. 3 network, times 2, + 1 with congestion evidence */
    const SEVERITY = [0, 3, 2, 1];
    function callKey(c) {
      const ii = C.inst[c] - 1;
      if (ii < 0) return 0;
      return SEVERITY[I.verdict[ii]] * 2 + ((I.why[ii] & WHY_CONGESTION) ? 1 : 0);
    }

    /* A run of calls narrower than a pixel each: bar, verdict stripe (the worst), sub-phase strip. */
    function drawCallRun(rr, run, y, subY) {
      const d = callDepth[run.i], yy = y + d * ROW_H + 1, w = run.x1 - run.x0;
      const sev = run.key >> 1, v = SEVERITY.indexOf(sev);
      ctx.fillStyle = opColor(C.op[run.i]);
      ctx.fillRect(run.x0, yy, w, ROW_H - 2);
      if (v > 0) {
        ctx.fillStyle = VERDICT_COLORS[v];
        ctx.fillRect(run.x0, yy + ROW_H - 5, w, 3);
      }
      ctx.fillStyle = run.key & 1 ? COL.xferBad : COL.xfer;
      ctx.fillRect(run.x0, subY, w, SUB_H);
    }

    function drawCall(rr, c, x0, x1, y, subY, hl) {
      const d = callDepth[c], ii = C.inst[c] - 1, t0 = C.start[c], t1 = t0 + C.dur[c];
      const yy = y + d * ROW_H + 1;
      ctx.fillStyle = opColor(C.op[c]);
      ctx.fillRect(x0, yy, x1 - x0, ROW_H - 2);
      if (ii >= 0 && I.verdict[ii] !== 0) {
        ctx.fillStyle = VERDICT_COLORS[I.verdict[ii]];
        ctx.fillRect(x0, yy + ROW_H - 5, x1 - x0, 3);
      }
      if (x1 - x0 > 24) {
        ctx.fillStyle = '#FFFFFF';
        let label = OPS[C.op[c]] + (C.seq[c] ? ' #' + C.seq[c] : '');
        if (ii >= 0 && I.verdict[ii]) label = VERDICT_GLYPH[I.verdict[ii]] + ' ' + label;
        if (ii >= 0 && Number.isFinite(optNum(I.busbw[ii], 1)) && x1 - x0 > 160)
          label += ' \u00b7 ' + fmtBytes(I.size[ii]) + ' \u00b7 ' + fmtBw(optNum(I.busbw[ii], 1));
        textIn(label, Math.max(x0, GUTTER), yy + ROW_H / 2 - 2, Math.min(x1, cssW) - Math.max(x0, GUTTER));
      }
      /* sub-phases: waiting for the last rank, then the transfer (in flight after a non-blocking return) */
      const le = ii >= 0 ? I.fe[ii] + I.le[ii] : t0;
      const ret = t0 + C.ret[c];
      if (le > t0) {
        ctx.fillStyle = COL.wait;
        ctx.fillRect(x0, subY, Math.max(1, Math.min(x1, xOf(le)) - x0), SUB_H);
      }
      const xs = xOf(Math.max(t0, Math.min(le, t1)));
      if (x1 - xs >= 0.5 || le <= t0) {
        ctx.fillStyle = ii >= 0 && (I.why[ii] & WHY_CONGESTION) ? COL.xferBad : COL.xfer;
        ctx.fillRect(xs, subY, Math.max(1, x1 - xs), SUB_H);
      }
      if ((C.flags[c] & 2) && ret < t1) {
        const xr = Math.max(xs, xOf(ret));
        ctx.fillStyle = 'rgba(255,255,255,0.55)';
        ctx.fillRect(xr, subY + 2, x1 - xr, SUB_H - 4);
      }
      const strag = ii >= 0 && isStraggler(ii) && I.strag[ii] - 1 === rr.i;
      if (hl || strag) {
        const sel = selected && selected.kind === 'inst' && selected.i === ii;
        ctx.lineWidth = sel ? 2.5 : strag ? 2 : 1.5;
        ctx.strokeStyle = strag && !hl ? COL.strag : COL.sel;
        ctx.strokeRect(x0 + 0.5, yy - 0.5, Math.max(1, x1 - x0 - 1), ROW_H - 1);
        if (strag && x1 - x0 > 3) {
          ctx.fillStyle = COL.strag;
          ctx.beginPath(); ctx.moveTo(x0, yy - 1); ctx.lineTo(x0 + 7, yy - 1); ctx.lineTo(x0, yy + 7); ctx.closePath(); ctx.fill();
        }
        ctx.lineWidth = 1;
      }
    }

    function drawRank(row, y) {
      const rr = row.rr, a = view.from, b = view.to;
      const selInst = selected && selected.kind === 'inst' ? selected.i : -1;
      const hovInst = hover && hover.inst >= 0 ? hover.inst : -1;
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      /* spans: steps and named phases */
      const spanRun = function (run) {
        const yy = y + S.depth[run.i] * ROW_H + 1;
        ctx.fillStyle = run.key ? COL.mark : COL.step;
        ctx.fillRect(run.x0, yy, run.x1 - run.x0, ROW_H - 2);
      };
      for (const L of rr.spanLists) {
        if (!L) continue;
        walk(L, a, b, spanDur, function (s, x0, x1) {
          const yy = y + S.depth[s] * ROW_H + 1;
          const step = S.kind[s] === 0;
          ctx.fillStyle = step ? COL.step : COL.mark;
          ctx.fillRect(x0, yy, x1 - x0, ROW_H - 2);
          if (x1 - x0 > 3) {
            ctx.strokeStyle = step ? COL.stepLine : COL.markLine;
            ctx.strokeRect(x0 + 0.5, yy + 0.5, x1 - x0 - 1, ROW_H - 3);
            ctx.fillStyle = COL.text;
            textIn(step ? 'step ' + S.step[s] : S.names[S.name[s]] || 'phase', Math.max(x0, GUTTER), yy + ROW_H / 2 - 1,
              Math.min(x1, cssW) - Math.max(x0, GUTTER));
          }
        }, function (s) { return S.kind[s]; }, spanRun);
      }
      /* calls with their sub-phase strip under the deepest row */
      const subY = y + rr.depths * ROW_H + 1;
      for (const L of rr.callLists) {
        if (!L) continue;
        walk(L, a, b, callDur, function (c, x0, x1) { drawCall(rr, c, x0, x1, y, subY, false); }, callKey,
          function (run) { drawCallRun(rr, run, y, subY); });
      }
      /* the hovered and the selected collective, on top and never merged away */
      for (const ii of [hovInst, selInst]) {
        if (ii < 0) continue;
        for (let m = I.mstart[ii]; m < I.mstart[ii + 1]; m++) {
          const c = I.members[m];
          if (C.rank[c] - 1 !== rr.i) continue;
          const t0 = C.start[c], t1 = t0 + C.dur[c];
          if (t1 < a || t0 > b) continue;
          const x0 = xOf(t0);
          drawCall(rr, c, x0, Math.max(x0 + 1, xOf(t1)), y, subY, true);
        }
      }
    }

    function drawInferred(row, y) {
      const a = view.from, b = view.to;
      for (let i = 0; i < INF.n; i++) {
        const t0 = INF.start[i], t1 = t0 + INF.dur[i];
        if (t1 < a || t0 > b) continue;
        const x0 = xOf(t0), x1 = Math.max(x0 + 1, xOf(t1));
        ctx.fillStyle = INF.matched[i] ? '#56B4E9' : '#9C9C9C';
        ctx.fillRect(x0, y + 2, x1 - x0, row.h - 4);
      }
    }
    function drawActivity(row, y) {
      const A = row.act, a = view.from, b = view.to;
      let lp = -1;
      for (let i = 0; i < A.n; i++) {
        const t0 = A.start[i], t1 = t0 + A.dur[i];
        if (t1 < a) continue;
        if (t0 > b) break;
        const x0 = xOf(t0), x1 = Math.max(x0 + 1, xOf(t1));
        if (x1 - x0 < 1.5 && Math.floor(x0) === lp) continue;
        lp = Math.floor(x0);
        ctx.fillStyle = '#8FB8D6';
        ctx.fillRect(x0, y + 2, x1 - x0, row.h - 4);
      }
    }

    const EV_LANES = ['rtx', 'drop', 'ce', 'ctr'];
    function drawEvents(row, y) {
      const a = view.from, b = view.to;
      const lh = (row.h - 4) / 4;
      ctx.fillStyle = '#FBFBFA';
      ctx.fillRect(GUTTER, y, plotW(), row.h);
      /* counter spikes as ranges */
      const pend = {}; /* per class: the range not drawn yet, merged while they touch */
      const flush = function (cls) {
        const p = pend[cls];
        if (!p) return;
        ctx.fillStyle = CLS_COLORS[cls];
        ctx.fillRect(p[0], y + 2 + 3 * lh + 1, p[1] - p[0], lh - 2);
        pend[cls] = null;
      };
      for (const e of EV.ctr) {
        if (e[2] < a || e[1] > b) continue;
        const s = D.ctr_series[e[0]], cls = s ? s.cls : 0;
        const x0 = xOf(e[1]), x1 = Math.max(x0 + 2, xOf(e[2]));
        const p = pend[cls];
        if (p && x0 <= p[1] + 1) { if (x1 > p[1]) p[1] = x1; continue; }
        flush(cls);
        pend[cls] = [x0, x1];
      }
      for (const cls in pend) flush(cls);
      /* lost-event gaps: named here, hatched over every track by drawLost() */
      ctx.font = '600 10px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      for (const g of EV.lost) {
        if (g[1] < a || g[0] > b) continue;
        ctx.fillStyle = '#5a5a5a';
        ctx.fillText('\u26a0 ' + g[2] + ' events lost (' + (D.sources[g[3]] || '?') + ')', Math.max(GUTTER + 2, xOf(g[1]) + 3), y + row.h / 2);
      }
      const kinds = [[EV.rtx, 0, COL.rtx, 'tri'], [EV.drop, 1, COL.drop, 'x'], [EV.ce, 2, COL.ce, 'dia']];
      for (const k of kinds) {
        const E = k[0], lane = k[1];
        const cy = y + 2 + lane * lh + lh / 2;
        ctx.fillStyle = k[2];
        ctx.strokeStyle = k[2];
        let j = lowerBound(E.t, a, E.n), lp = -9;
        ctx.beginPath();
        while (j < E.n && E.t[j] <= b) {
          const x = Math.round(xOf(E.t[j]));
          lp = x;
          /* the next marker at least 3 px further */
          const k2 = lowerBound(E.t, tOf(lp + 3), E.n);
          j = k2 > j ? k2 : j + 1;
          const r = Math.min(4, lh / 2 - 0.5);
          if (k[3] === 'tri') { ctx.moveTo(x, cy - r); ctx.lineTo(x + r, cy + r); ctx.lineTo(x - r, cy + r); ctx.closePath(); }
          else if (k[3] === 'dia') { ctx.moveTo(x, cy - r); ctx.lineTo(x + r, cy); ctx.lineTo(x, cy + r); ctx.lineTo(x - r, cy); ctx.closePath(); }
          else { ctx.moveTo(x - r, cy - r); ctx.lineTo(x + r, cy + r); ctx.moveTo(x + r, cy - r); ctx.lineTo(x - r, cy + r); }
        }
        if (k[3] === 'x') { ctx.lineWidth = 1.6; ctx.stroke(); ctx.lineWidth = 1; } else ctx.fill();
      }
    }
    function drawEventLanes(row, y) {
      const lh = (row.h - 4) / 4;
      const names = ['retransmits \u25b2', 'drops \u2715', 'CE marks \u25c6', 'counter spikes \u25ac'];
      const cols = [COL.rtx, COL.drop, COL.ce, COL.ctr];
      ctx.font = '9px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'right';
      for (let l = 0; l < 4; l++) {
        ctx.fillStyle = cols[l];
        ctx.fillText(names[l], GUTTER - 6, y + 2 + l * lh + lh / 2);
      }
      ctx.textAlign = 'left';
    }

    function niceMax(v) {
      if (!(v > 0)) return 1;
      const p = Math.pow(10, Math.floor(Math.log10(v)));
      const m = v / p;
      return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    }

    /* min-max band and mean line of BUF, SCALE = the value at HPX pixels from YBASE */
    /*
     * The band between LO[x] (null: the base line) and HI[x] per pixel column, as
     * one filled path of step polygons (one fill, not a rectangle per column).
     */
    function fillBand(hi, lo, W, yBase, scale, hpx, up, fill) {
      const sgn = up ? -1 : 1;
      const yv = function (v) { return yBase + sgn * Math.max(0.8, Math.min(1, v / scale) * hpx); };
      const yl = function (v) { return yBase + sgn * Math.min(1, v / scale) * hpx; };
      ctx.fillStyle = fill;
      ctx.beginPath();
      let x = 0;
      while (x < W) {
        if (!(hi[x] > 0)) { x++; continue; }
        const x0 = x;
        while (x < W && hi[x] > 0) x++;
        ctx.moveTo(GUTTER + x0, yv(hi[x0]));
        for (let k = x0; k < x; k++) { const yy = yv(hi[k]); ctx.lineTo(GUTTER + k, yy); ctx.lineTo(GUTTER + k + 1, yy); }
        for (let k = x - 1; k >= x0; k--) {
          /* the near edge: the min (or the base line), at least 0.8 px from the far edge */
          const far = yv(hi[k]);
          let near = lo && lo[k] > 0 ? yl(lo[k]) : yBase;
          near = up ? Math.min(yBase, Math.max(near, far + 0.8)) : Math.max(yBase, Math.min(near, far - 0.8));
          ctx.lineTo(GUTTER + k + 1, near); ctx.lineTo(GUTTER + k, near);
        }
        ctx.closePath();
      }
      ctx.fill();
    }

    function drawEnvelope(buf, W, yBase, scale, hpx, up, fill, line) {
      fillBand(buf.max, buf.min, W, yBase, scale, hpx, up, fill);
      ctx.strokeStyle = line;
      ctx.beginPath();
      let on = false;
      for (let x = 0; x < W; x++) {
        const v = buf.mean[x];
        if (!(v >= 0)) { on = false; continue; }
        const yy = up ? yBase - Math.min(1, v / scale) * hpx : yBase + Math.min(1, v / scale) * hpx;
        if (!on) { ctx.moveTo(GUTTER + x, yy); on = true; } else ctx.lineTo(GUTTER + x + 0.5, yy);
      }
      ctx.stroke();
    }

    /*
     * The axis of one direction fits its link: the data's nice maximum, but never
     * above the link's capacity (the shaper where there is one, else the line
     * rate).  Bins above it (GSO super-packets, a token bucket's bursts) are
     * clipped and marked at the edge, so a 100 Mbit/s link is drawn on a
     * 100 Mbit/s scale, not on the 5 Gbit/s of its fullest bin.
     */
    function linkScale(buf, cap) {
      let mx = 0;
      if (buf) for (let x = 0; x < buf.max.length; x++) if (buf.max[x] > mx) mx = buf.max[x];
      const s = niceMax(mx);
      return cap > 0 && cap < s ? cap : s;
    }

    function markClipped(buf, W, yBase, scale, hpx, up) {
      ctx.fillStyle = COL.drop;
      for (let x = 0; x < W; x++)
        if (buf.max[x] > scale * 1.0005) ctx.fillRect(GUTTER + x, up ? yBase - hpx - 1 : yBase + hpx - 1, 1, 2);
    }

    function drawTp(row, y) {
      const W = Math.min(8192, Math.floor(plotW()));
      const a = view.from, b = a + W * nsPerPx();
      const half = (row.h - 6) / 2, mid = y + 3 + half;
      const tx = row.tx ? raster(row.tx, a, b, W, rbuf) : null;
      const rx = row.rx ? raster(row.rx, a, b, W, rbuf2) : null;
      const cap = D.ifaces[row.iface].cap;
      const sTx = linkScale(tx, cap[1]), sRx = linkScale(rx, cap[0]);
      ctx.strokeStyle = '#BDBDBD';
      ctx.beginPath(); ctx.moveTo(GUTTER, mid + 0.5); ctx.lineTo(GUTTER + W, mid + 0.5); ctx.stroke();
      if (tx) { drawEnvelope(tx, W, mid, sTx, half, true, COL.txFill, COL.tx); markClipped(tx, W, mid, sTx, half, true); }
      if (rx) { drawEnvelope(rx, W, mid, sRx, half, false, COL.rxFill, COL.rx); markClipped(rx, W, mid, sRx, half, false); }
      for (let d = 0; d < 2; d++) {
        const sc = d === 1 ? sTx : sRx;
        if (!(cap[d] > 0) || cap[d] > sc) continue;
        const yy = d === 1 ? mid - cap[d] / sc * half : mid + cap[d] / sc * half;
        ctx.strokeStyle = COL.cap;
        ctx.setLineDash([4, 3]);
        ctx.beginPath(); ctx.moveTo(GUTTER, yy); ctx.lineTo(GUTTER + W, yy); ctx.stroke();
        ctx.setLineDash([]);
      }
      shadeWindows(tx || rx, y, row.h);
      row.scale = [sRx, sTx];
      row.lod = tx ? tx.exact : rx ? rx.exact : false;
      ctx.fillStyle = COL.muted;
      ctx.font = '10px system-ui, sans-serif';
      ctx.textBaseline = 'top';
      ctx.fillText('tx ' + fmtBits(sTx), GUTTER + 3, y + 2);
      ctx.textBaseline = 'bottom';
      ctx.fillText('rx ' + fmtBits(sRx), GUTTER + 3, y + row.h - 2);
    }

    function shadeWindows(buf, y, h) {
      if (!buf || !buf.windows.length) return;
      ctx.strokeStyle = 'rgba(0,0,0,0.25)';
      ctx.setLineDash([2, 2]);
      for (const w of buf.windows) {
        ctx.beginPath();
        ctx.moveTo(GUTTER + w[0] + 0.5, y); ctx.lineTo(GUTTER + w[0] + 0.5, y + h);
        ctx.moveTo(GUTTER + w[1] - 0.5, y); ctx.lineTo(GUTTER + w[1] - 0.5, y + h);
        ctx.stroke();
      }
      ctx.setLineDash([]);
    }

    function drawQ(row, y) {
      const W = Math.min(8192, Math.floor(plotW()));
      const a = view.from, b = a + W * nsPerPx();
      const buf = raster(row.tr, a, b, W, rbuf);
      const h = row.h - 6, base = y + row.h - 3;
      let mx = 0, ms = 0;
      for (let x = 0; x < W; x++) { if (buf.max[x] > mx) mx = buf.max[x]; if (buf.sec[x] > ms) ms = buf.sec[x]; }
      const sb = niceMax(mx), ss = niceMax(ms);
      fillBand(buf.max, null, W, base, sb, h, true, COL.backlog);
      ctx.strokeStyle = COL.sojourn;
      ctx.beginPath();
      let on = false;
      for (let x = 0; x < W; x++) {
        const v = buf.sec[x];
        if (!(v > 0)) { on = false; continue; }
        const yy = base - Math.min(1, v / ss) * h;
        if (!on) { ctx.moveTo(GUTTER + x, yy); on = true; } else ctx.lineTo(GUTTER + x + 0.5, yy);
      }
      ctx.stroke();
      shadeWindows(buf, y, row.h);
      ctx.fillStyle = COL.muted;
      ctx.font = '10px system-ui, sans-serif';
      ctx.textBaseline = 'top';
      ctx.fillText('backlog ' + fmtBytes(sb) + ' \u00b7 sojourn ' + fmtDur(ss), GUTTER + 3, y + 2);
    }

    function drawCtr(row, y) {
      const W = Math.min(8192, Math.floor(plotW()));
      const a = view.from, b = a + W * nsPerPx();
      const buf = raster(row.tr, a, b, W, rbuf);
      const h = row.h - 6, base = y + row.h - 3;
      let mx = 0;
      for (let x = 0; x < W; x++) if (buf.max[x] > mx) mx = buf.max[x];
      const sc = niceMax(mx);
      const col = CLS_COLORS[row.series.cls] || COL.ctr;
      fillBand(buf.max, null, W, base, sc, h, true, col + '55');
      ctx.strokeStyle = col;
      ctx.beginPath();
      let on = false;
      for (let x = 0; x < W; x++) {
        const v = buf.mean[x];
        if (!(v >= 0)) { on = false; continue; }
        const yy = base - Math.min(1, v / sc) * h;
        if (!on) { ctx.moveTo(GUTTER + x, yy); on = true; } else ctx.lineTo(GUTTER + x + 0.5, yy);
      }
      ctx.stroke();
      ctx.fillStyle = COL.muted;
      ctx.font = '10px system-ui, sans-serif';
      ctx.textBaseline = 'top';
      ctx.fillText(ctrRate(row.series, sc), GUTTER + 3, y + 2);
    }
    /* a counter's rate: bytes (FT_CTRF_BYTES) as B/s, else per second */
    function ctrRate(ser, r) { return ser && (ser.flags & 1) ? fmtBytes(r) + '/s' : fmtRate(r); }

    function drawLost(y0, y1) {
      if (!EV.lost.length) return;
      for (const g of EV.lost) {
        if (g[1] < view.from || g[0] > view.to) continue;
        const x0 = Math.max(GUTTER, xOf(g[0])), x1 = Math.max(x0 + 3, Math.min(cssW, xOf(g[1])));
        clipRect(x0, y0, x1 - x0, y1 - y0);
        ctx.fillStyle = 'rgba(255,255,255,0.55)';
        ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
        ctx.strokeStyle = COL.lost;
        ctx.beginPath();
        for (let x = x0 - (y1 - y0); x < x1; x += 7) { ctx.moveTo(x, y1); ctx.lineTo(x + (y1 - y0), y0); }
        ctx.stroke();
        ctx.restore();
      }
    }

    function drawSelectionGuides(y0, y1) {
      const ii = selected && selected.kind === 'inst' ? selected.i : hover && hover.inst >= 0 ? hover.inst : -1;
      if (ii < 0) return;
      const fe = I.fe[ii], le = fe + I.le[ii], lx = fe + I.lx[ii];
      ctx.setLineDash([5, 4]);
      const lines = [[fe, '#444'], [le, COL.strag], [lx, '#444']];
      for (const l of lines) {
        const x = Math.round(xOf(l[0])) + 0.5;
        if (x < GUTTER || x > cssW) continue;
        ctx.strokeStyle = l[1];
        ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.stroke();
      }
      ctx.setLineDash([]);
    }

    function draw() {
      const t0 = performance.now();
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = '#FFFFFF';
      ctx.fillRect(0, 0, cssW, cssH);
      const sy = scrollY();
      const tk = niceTicks(view.from, view.to, Math.max(2, Math.floor(plotW() / 110)));
      /* rows */
      clipRect(0, TOP_H, cssW, cssH - TOP_H);
      ctx.strokeStyle = COL.grid;
      for (const t of tk.ticks) {
        const x = Math.round(xOf(t)) + 0.5;
        ctx.beginPath(); ctx.moveTo(x, TOP_H); ctx.lineTo(x, cssH); ctx.stroke();
      }
      let flameTop = -1, flameBot = -1;
      for (const r of rows) {
        const y = TOP_H + r.y - sy;
        if (r.type === 'rank') { if (flameTop < 0) flameTop = y; flameBot = y + r.h; }
        if (y > cssH || y + r.h < TOP_H) continue;
        if (r.type === 'section') {
          ctx.fillStyle = '#EFEFEA';
          ctx.fillRect(0, y, cssW, r.h);
          ctx.fillStyle = COL.text;
          ctx.font = '600 12px system-ui, sans-serif';
          ctx.textBaseline = 'middle';
          ctx.fillText(r.label, 8, y + r.h / 2);
          continue;
        }
        if (r.type === 'host') {
          ctx.fillStyle = '#F7F7F4';
          ctx.fillRect(0, y, cssW, r.h);
          ctx.fillStyle = COL.text;
          ctx.font = '600 11px system-ui, sans-serif';
          ctx.textBaseline = 'middle';
          ctx.fillText('\u25be host ' + r.label, 8, y + r.h / 2);
          continue;
        }
        clipRect(GUTTER, y, plotW(), r.h);
        if (r.type === 'rank') drawRank(r, y);
        else if (r.type === 'events') drawEvents(r, y);
        else if (r.type === 'tp') drawTp(r, y);
        else if (r.type === 'q') drawQ(r, y);
        else if (r.type === 'ctr') drawCtr(r, y);
        else if (r.type === 'inferred') drawInferred(r, y);
        else if (r.type === 'activity') drawActivity(r, y);
        ctx.restore();
        /* gutter label */
        ctx.fillStyle = r.type === 'rank' && r.rr.i === flashRank && performance.now() < flashUntil ? '#FFE9A8' : '#FFFFFF';
        ctx.fillRect(0, y, GUTTER - 1, r.h);
        ctx.fillStyle = COL.text;
        ctx.font = (r.type === 'rank' ? '600 ' : '') + (r.h < 16 ? '10px' : '11px') + ' system-ui, sans-serif';
        ctx.textBaseline = 'top';
        ctx.fillText(r.label.length > 30 ? r.label.slice(0, 29) + '\u2026' : r.label, 14, y + (r.h < 16 ? 1 : 3));
        if (r.sub && r.h >= 28) {
          ctx.fillStyle = COL.muted;
          ctx.font = '10px system-ui, sans-serif';
          ctx.fillText(r.sub.length > 34 ? r.sub.slice(0, 33) + '\u2026' : r.sub, 14, y + 16);
        }
        if (r.type === 'rank' && r.rr.r.last) {
          ctx.fillStyle = COL.strag;
          ctx.font = '10px system-ui, sans-serif';
          ctx.fillText('last in ' + r.rr.r.last + '\u00d7', 14, y + (r.h >= 28 ? 28 : 16));
        }
        if (r.type === 'events') drawEventLanes(r, y);
        ctx.strokeStyle = '#E2E2E2';
        ctx.beginPath(); ctx.moveTo(0, y + r.h - 0.5); ctx.lineTo(cssW, y + r.h - 0.5); ctx.stroke();
      }
      ctx.strokeStyle = '#BDBDBD';
      ctx.beginPath(); ctx.moveTo(GUTTER - 0.5, TOP_H); ctx.lineTo(GUTTER - 0.5, cssH); ctx.stroke();
      clipRect(GUTTER, TOP_H, plotW(), cssH - TOP_H);
      drawLost(TOP_H, Math.min(cssH, TOP_H + ROWS_H - sy));
      if (flameTop >= 0) drawSelectionGuides(Math.max(TOP_H, flameTop), Math.min(cssH, flameBot));
      if (drag && drag.mode === 'select') {
        const x0 = Math.min(drag.x0, drag.x1), x1 = Math.max(drag.x0, drag.x1);
        ctx.fillStyle = 'rgba(0,114,178,0.15)';
        ctx.fillRect(x0, TOP_H, x1 - x0, cssH - TOP_H);
        ctx.strokeStyle = COL.tx;
        ctx.strokeRect(x0 + 0.5, TOP_H + 0.5, x1 - x0, cssH - TOP_H - 1);
      }
      if (hover && hover.x !== undefined && hover.x >= GUTTER) {
        ctx.strokeStyle = 'rgba(0,0,0,0.35)';
        ctx.beginPath(); ctx.moveTo(Math.round(hover.x) + 0.5, TOP_H); ctx.lineTo(Math.round(hover.x) + 0.5, cssH); ctx.stroke();
      }
      ctx.restore();
      ctx.restore();
      drawOverview();
      drawAxis();
      updateStatus();
      lastDrawMs = performance.now() - t0;
      drawCount++;
    }

