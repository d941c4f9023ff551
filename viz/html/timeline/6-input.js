// viz/html/timeline/6-input.js: part 6 of the timeline's script.  The parts in viz/html/timeline/ are
// one script, split by concern: the Makefile joins them in order into
// $(BUILD)/viz_html/timeline.js, dropping these leading // lines, and
// viz/html.c inlines it into the page.
// Inside main(): mouse, wheel and keyboard input and the buttons, then the
// start (first layout and draw, window.fabtrace for tests); closes main()
// and the IIFE opened in part 1.
    /* ------------------------------------------------------------------ input */

    function localXY(e) {
      const r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    }

    canvas.addEventListener('wheel', function (e) {
      const p = localXY(e);
      if (p[0] < GUTTER && p[1] >= TOP_H && !e.shiftKey) return; /* scroll the tracks natively */
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? cssH : 1;
      const dx = e.deltaX * unit, dy = e.deltaY * unit;
      if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) {
        pan((e.shiftKey ? dy || dx : dx) * nsPerPx());
        return;
      }
      const f = Math.exp(-dy * 0.0025);
      zoom(f, p[0] >= GUTTER ? tOf(p[0]) : undefined);
    }, { passive: false });

    canvas.addEventListener('mousedown', function (e) {
      if (e.button !== 0 && e.button !== 1) return;
      const p = localXY(e);
      const onTop = p[1] < TOP_H;
      const mode = e.button === 1 || e.shiftKey || onTop ? 'pan' : 'select';
      drag = { mode: mode, x0: p[0], x1: p[0], y0: p[1], from: view.from, to: view.to, moved: false, overview: p[1] < OVER_H };
      if (drag.overview && p[0] >= GUTTER) { /* jump: centre the view on the clicked time */
        const t = (p[0] - GUTTER) / plotW() * DUR, span = view.to - view.from;
        setView(t - span / 2, t + span / 2);
        drag.from = view.from; drag.to = view.to;
      }
      e.preventDefault();
      scroller.focus({ preventScroll: true });
    });
    window.addEventListener('mousemove', function (e) {
      const p = localXY(e);
      if (drag) {
        drag.x1 = p[0];
        if (Math.abs(drag.x1 - drag.x0) > 3) drag.moved = true;
        if (drag.mode === 'pan' && drag.moved) {
          const perPx = drag.overview ? -DUR / plotW() : (drag.to - drag.from) / plotW();
          const dt = (drag.x1 - drag.x0) * perPx;
          setView(drag.from - dt, drag.to - dt);
        } else requestDraw();
        return;
      }
      if (e.target !== canvas) { if (hover) { hover = null; tip.hidden = true; requestDraw(); } return; }
      const h = hitTest(p[0], p[1]);
      const prevInst = hover ? hover.inst : -1;
      hover = h;
      showTip(tipFor(h), e.clientX, e.clientY);
      canvas.style.cursor = h.area === 'overview' || h.area === 'axis' ? 'grab' : h.call !== undefined ? 'pointer' : 'crosshair';
      if (h.inst !== prevInst || h.area === 'plot') requestDraw();
    });
    window.addEventListener('mouseup', function (e) {
      if (!drag) return;
      const d = drag;
      drag = null;
      const p = localXY(e);
      if (d.mode === 'select' && d.moved) {
        const x0 = Math.max(GUTTER, Math.min(d.x0, d.x1)), x1 = Math.max(d.x0, d.x1);
        if (x1 - x0 > 3) setView(tOf(x0), tOf(x1));
        requestDraw();
        return;
      }
      if (!d.moved && d.mode === 'select') {
        const h = hitTest(p[0], p[1]);
        if (h.call !== undefined) {
          if (h.inst >= 0) select({ kind: 'inst', i: h.inst });
          else select({ kind: 'call', i: h.call });
        } else if (h.area === 'plot') {
          select(null);
        }
      }
      requestDraw();
    });
    canvas.addEventListener('mouseleave', function () { if (!drag) { hover = null; tip.hidden = true; requestDraw(); } });
    canvas.addEventListener('dblclick', function (e) {
      const p = localXY(e);
      const h = hitTest(p[0], p[1]);
      if (h.inst >= 0) zoomTo(h.inst); else if (h.area === 'plot') zoom(2, h.t);
    });
    scroller.addEventListener('scroll', requestDraw);
    window.addEventListener('resize', resize);

    window.addEventListener('keydown', function (e) {
      if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA')) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const span = view.to - view.from;
      let done = true;
      switch (e.key) {
      case 'w': case 'W': case '+': case '=': zoom(1.6); break;
      case 's': case 'S': case '-': case '_': zoom(1 / 1.6); break;
      case 'a': case 'A': case 'ArrowLeft': pan(-span * 0.2); break;
      case 'd': case 'D': case 'ArrowRight': pan(span * 0.2); break;
      case 'ArrowUp': scroller.scrollTop -= 40; break;
      case 'ArrowDown': scroller.scrollTop += 40; break;
      case 'PageUp': scroller.scrollTop -= cssH * 0.8; break;
      case 'PageDown': scroller.scrollTop += cssH * 0.8; break;
      case '0': case 'Home': resetView(); break;
      case 'f': case 'F': if (selected && selected.kind === 'inst') zoomTo(selected.i); break;
      case 'n': case 'N': stepFlagged(1); break;
      case 'p': case 'P': stepFlagged(-1); break;
      case 'l': case 'L': el('ft-legend').hidden = !el('ft-legend').hidden; el('ft-help').hidden = true; break;
      case '?': el('ft-help').hidden = !el('ft-help').hidden; el('ft-legend').hidden = true; break;
      case '/': search.focus(); search.select(); break;
      case 'Escape':
        el('ft-help').hidden = true; el('ft-legend').hidden = true; results.hidden = true;
        if (selected) select(null);
        break;
      default: done = false;
      }
      if (done) e.preventDefault();
    });

    el('ft-zoom-in').onclick = function () { zoom(1.6); };
    el('ft-zoom-out').onclick = function () { zoom(1 / 1.6); };
    el('ft-reset').onclick = resetView;
    el('ft-prev').onclick = function () { stepFlagged(-1); };
    el('ft-next').onclick = function () { stepFlagged(1); };
    el('ft-legend-btn').onclick = function () { el('ft-legend').hidden = !el('ft-legend').hidden; el('ft-help').hidden = true; };
    el('ft-help-btn').onclick = function () { el('ft-help').hidden = !el('ft-help').hidden; el('ft-legend').hidden = true; };
    el('ft-details-close').onclick = function () { select(null); };

    /* ------------------------------------------------------------------ start */

    el('ft-subtitle').textContent = M.host + ' \u00b7 ' + M.start_wall + ' \u00b7 ' + fmtDur(DUR) + ' \u00b7 bin ' + fmtDur(M.bin) +
      ' \u00b7 ' + NR + ' ranks \u00b7 ' + I.n + ' collectives';
    document.title = 'fabtrace \u2014 ' + M.host + ' ' + M.start_wall;
    buildLegend();
    buildNotes();

    /* for tests and scripts */
    window.fabtrace = {
      format: D.format,
      inflater: inflater,
      ranks: NR,
      hosts: new Set(ranks.map(function (r) { return r.host; })).size,
      collectives: I.n,
      calls: C.n,
      flagged: FLAGGED.length,
      tracks: TRACKS.length,
      view: view,
      get selected() {
        if (!selected) return null;
        if (selected.kind !== 'inst') return { kind: selected.kind, index: selected.i };
        const ii = selected.i;
        return { kind: 'inst', index: ii, op: OPS[I.op[ii]], seq: I.seq[ii], verdict: VERDICTS[I.verdict[ii]],
          straggler: I.strag[ii] ? ranks[I.strag[ii] - 1].rank : null, span_ns: I.lx[ii], evidence: EVID.has(ii) };
      },
      get lastDrawMs() { return lastDrawMs; },
      get draws() { return drawCount; },
      errors: errors,
      zoom: function (f, center) { zoom(f, center); draw(); return { from: view.from, to: view.to }; },
      pan: function (dt) { pan(dt); draw(); return { from: view.from, to: view.to }; },
      setView: function (a, b) { setView(a, b); draw(); return { from: view.from, to: view.to }; },
      reset: function () { resetView(); draw(); },
      select: function (ii) { select(ii === null ? null : { kind: 'inst', i: ii }); draw(); return this.selected; },
      zoomTo: function (ii) { zoomTo(ii); draw(); },
      search: function (q) { return runSearch(q).m; },
      instances: function () {
        const out = [];
        for (let i = 0; i < I.n; i++) out.push({ index: i, op: OPS[I.op[i]], seq: I.seq[i], verdict: VERDICTS[I.verdict[i]], fe: I.fe[i], span: I.lx[i] });
        return out;
      },
      /* client coordinates of the centre of instance II's bar on its first visible member rank (or null) */
      locate: function (ii) {
        draw();
        const rc = canvas.getBoundingClientRect();
        for (let m = I.mstart[ii]; m < I.mstart[ii + 1]; m++) {
          const c = I.members[m], rr = R[C.rank[c] - 1];
          if (!rr || !rr.row) continue;
          const y = TOP_H + rr.row.y - scrollY() + callDepth[c] * ROW_H + ROW_H / 2;
          const x0 = Math.max(GUTTER, xOf(C.start[c])), x1 = Math.min(cssW, xOf(C.start[c] + C.dur[c]));
          if (x1 - x0 < 1 || y < TOP_H || y > cssH) continue;
          return { x: rc.left + (x0 + x1) / 2, y: rc.top + y };
        }
        return null;
      }
    };

    resize();
    document.body.dataset.ready = '1';
  }
})();
