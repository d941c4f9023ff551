// viz/html/timeline/5-panels.js: part 5 of the timeline's script.  The parts in viz/html/timeline/ are
// one script, split by concern: the Makefile joins them in order into
// $(BUILD)/viz_html/timeline.js, dropping these leading // lines, and
// viz/html.c inlines it into the page.
// Inside main(): hit testing and tooltips, the details panel of a selected
// collective or call, navigation over flagged collectives, search, legend,
// notes and the status line.
    /* ------------------------------------------------------------------ hit testing and tooltips */

    function rowAt(yc) {
      const y = yc - TOP_H + scrollY();
      let lo = 0, hi = rows.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1, r = rows[mid];
        if (y < r.y) hi = mid - 1; else if (y >= r.y + r.h) lo = mid + 1; else return { row: r, dy: y - r.y };
      }
      return null;
    }

    function hitRank(rr, t, dy, tol) {
      const depth = Math.floor(dy / ROW_H);
      if (dy >= rr.depths * ROW_H) {
        /* the sub-phase strip: the call covering t at any depth */
        let j = lowerBound(rr.callStart, t - rr.maxCall), best = -1;
        for (; j < rr.calls.length && rr.callStart[j] <= t + tol; j++) {
          const c = rr.calls[j];
          if (C.start[c] - tol <= t && t <= C.start[c] + C.dur[c] + tol) best = c;
        }
        return best >= 0 ? { call: best, sub: true } : null;
      }
      let j = lowerBound(rr.callStart, t - rr.maxCall - tol), best = -1, bd = Infinity;
      for (; j < rr.calls.length && rr.callStart[j] <= t + tol; j++) {
        const c = rr.calls[j];
        if (callDepth[c] !== depth) continue;
        const t0 = C.start[c], t1 = t0 + C.dur[c];
        const d = t < t0 ? t0 - t : t > t1 ? t - t1 : 0;
        if (d <= tol && d < bd) { bd = d; best = c; }
      }
      if (best >= 0) return { call: best };
      j = lowerBound(rr.spanStart, t - rr.maxSpan - tol);
      let bs = -1;
      for (; j < rr.spans.length && rr.spanStart[j] <= t + tol; j++) {
        const s = rr.spans[j];
        if (S.depth[s] !== depth) continue;
        if (S.start[s] - tol <= t && t <= S.start[s] + S.dur[s] + tol) bs = s;
      }
      return bs >= 0 ? { span: bs } : null;
    }

    function hitTest(xc, yc) {
      if (yc < TOP_H) return { area: yc < OVER_H ? 'overview' : 'axis' };
      if (xc < GUTTER) {
        const hr = rowAt(yc);
        return { area: 'gutter', row: hr ? hr.row : null };
      }
      const hr = rowAt(yc);
      const t = tOf(xc), tol = 2 * nsPerPx();
      const h = { area: 'plot', t: t, x: xc, row: hr ? hr.row : null, inst: -1 };
      if (!hr) return h;
      const r = hr.row;
      if (r.type === 'rank') {
        const k = hitRank(r.rr, t, hr.dy, tol);
        if (k) { Object.assign(h, k); if (k.call !== undefined) h.inst = C.inst[k.call] - 1; }
      } else if (r.type === 'events') {
        const lh = (r.h - 4) / 4, lane = Math.max(0, Math.min(3, Math.floor((hr.dy - 2) / lh)));
        h.lane = EV_LANES[lane];
        h.evs = eventsNear(h.lane, t, 4 * nsPerPx());
      } else if (r.type === 'inferred') {
        for (let i = 0; i < INF.n; i++) if (INF.start[i] - tol <= t && t <= INF.start[i] + INF.dur[i] + tol) h.inf = i;
      }
      return h;
    }

    function eventsNear(lane, t, tol) {
      const out = [];
      if (lane === 'ctr') {
        for (const e of EV.ctr) if (e[1] - tol <= t && t <= e[2] + tol) out.push(e);
        return out;
      }
      const E = EV[lane];
      for (let j = lowerBound(E.t, t - tol, E.n); j < E.n && E.t[j] <= t + tol && out.length < 50; j++) out.push(j);
      return out;
    }

    const tip = el('ft-tip');
    function kv(k, v) { return '<span class="k">' + esc(k) + '</span> ' + v + '<br>'; }

    function callTip(c) {
      const ii = C.inst[c] - 1, rr = C.rank[c] - 1;
      let s = '<b>' + esc(OPS[C.op[c]]) + (C.seq[c] ? ' #' + C.seq[c] : '') + '</b> on ' + esc(rankName(rr)) + ' (' + esc(ranks[rr] ? ranks[rr].host : '') + ')<br>';
      s += kv('entry', fmtT(C.start[c])) + kv('duration', fmtDur(C.dur[c]));
      if (C.flags[c] & 2) s += kv('returned after', fmtDur(C.ret[c]) + ' (non-blocking; ends at completion)');
      if (C.bytes[c]) s += kv('bytes', fmtBytes(C.bytes[c]));
      if (ii >= 0) {
        const le = I.fe[ii] + I.le[ii];
        s += kv('wait for last rank', fmtDur(Math.max(0, le - C.start[c])));
        s += kv('size', fmtBytes(I.size[ii])) + kv('bus bandwidth', fmtBw(optNum(I.busbw[ii], 1)));
        s += kv('span / skew', fmtDur(I.lx[ii]) + ' / ' + fmtDur(I.le[ii]));
        s += kv('verdict', '<b>' + esc(VERDICTS[I.verdict[ii]]) + '</b>' + (I.strag[ii] && isStraggler(ii) ? ' \u00b7 straggler ' + esc(rankName(I.strag[ii] - 1)) : ''));
        s += '<span class="k">click for details</span>';
      }
      return s;
    }

    function trackTip(tr, t, label, ser) {
      const nspx = nsPerPx();
      const smp = sampleAt(tr, t, nspx);
      if (!smp) return '';
      if (smp.idle) return '<b>' + esc(label) + '</b> idle (exact bins)<br>';
      const L = smp.L, j = smp.j, v = L.v;
      let s = '<b>' + esc(label) + '</b> ' + fmtT(smp.t0) + ' \u2026 ' + fmtDur(smp.t1 - smp.t0) + '<br>';
      if (tr.type === 'tp') {
        if (L.k === 0) s += kv('exact bin', fmtBytes(v[0][j]) + ', ' + v[1][j] + ' pkts, ' + fmtBits(v[0][j] * 8e9 / tr.w) + (v[2][j] ? ', CE ' + v[2][j] : ''));
        else s += kv(Math.pow(2, L.k) + ' bins', 'max ' + fmtBits(v[0][j] * 8e9 / tr.w) + ', mean ' + fmtBits(v[2][j] / Math.pow(2, L.k) * 8e9 / tr.w) + ', min ' + fmtBits(v[1][j] * 8e9 / tr.w) + ', ' + fmtBytes(v[2][j]) + (v[3][j] ? ', CE ' + v[3][j] : ''));
      } else if (tr.type === 'q') {
        if (L.k === 0) s += kv('exact bin', 'backlog ' + fmtBytes(v[0][j]) + ' (' + v[1][j] + ' pkts), sojourn max ' + fmtDur(v[2][j]) + ', mean ' + fmtDur(v[3][j]) + (v[4][j] ? ', drops ' + v[4][j] : ''));
        else s += kv(Math.pow(2, L.k) + ' bins', 'max backlog ' + fmtBytes(v[0][j]) + ', max sojourn ' + fmtDur(v[1][j]) + (v[2][j] ? ', drops ' + v[2][j] : ''));
      } else {
        if (L.k === 0) s += kv('interval', '+' + fmtNum(v[1][j], 0) + ' in ' + fmtDur(v[0][j]) + ' = ' + ctrRate(ser, v[3][j]));
        else s += kv(Math.pow(2, L.k) + ' periods', 'max ' + ctrRate(ser, v[0][j]) + ', mean ' + ctrRate(ser, v[2][j] * 1e9 / (tr.w * Math.pow(2, L.k))) + ', +' + v[2][j]);
      }
      return s;
    }

    function lostAt(t) {
      for (const g of EV.lost) if (g[0] <= t && t <= g[1]) return g;
      return null;
    }

    function tipFor(h) {
      let s = '';
      if (h.area !== 'plot' || !h.row) return '';
      const r = h.row;
      if (r.type === 'rank') {
        if (h.call !== undefined) s = callTip(h.call);
        else if (h.span !== undefined) {
          const sp = h.span;
          s = '<b>' + (S.kind[sp] === 0 ? 'step ' + S.step[sp] : esc(S.names[S.name[sp]])) + '</b> on ' + esc(r.label) + '<br>' +
            kv('start', fmtT(S.start[sp])) + kv('duration', fmtDur(S.dur[sp]) + (S.open[sp] ? ' (no end marker)' : ''));
        }
      } else if (r.type === 'tp') {
        if (r.tx) s += trackTip(r.tx, h.t, 'TX ' + r.label);
        if (r.rx) s += trackTip(r.rx, h.t, 'RX ' + r.label);
        const cap = D.ifaces[r.iface].cap;
        if (s && cap[1] > 0) s += kv('capacity', fmtBits(cap[1]) + ' tx, ' + fmtBits(cap[0]) + ' rx');
      } else if (r.type === 'q' || r.type === 'ctr') {
        s = trackTip(r.tr, h.t, r.label, r.series);
      } else if (r.type === 'events' && h.evs && h.evs.length) {
        s = eventsTip(h.lane, h.evs);
      } else if (r.type === 'inferred' && h.inf !== undefined) {
        const i = h.inf;
        s = '<b>inferred phase</b><br>' + kv('start', fmtT(INF.start[i])) + kv('duration', fmtDur(INF.dur[i])) +
          kv('hosts active', INF.hosts[i]) + kv('TX bytes', fmtBytes(INF.tx[i])) + kv('matches real collectives', INF.matched[i]);
      }
      const g = lostAt(h.t);
      if (g) s += '<br><b style="color:#b34a00">' + g[2] + ' events lost</b> (' + esc(D.sources[g[3]] || '?') + ', cpu ' + g[4] + ') between ' + fmtT(g[0]) + ' and ' + fmtT(g[1]) + ': data here is incomplete, not idle';
      return s;
    }

    function eventsTip(lane, evs) {
      let s = '';
      const max = 8;
      if (lane === 'rtx') {
        s = '<b>' + evs.length + (evs.length >= 50 ? '+' : '') + ' retransmit(s)</b><br>';
        for (const j of evs.slice(0, max)) {
          const f = D.flows[EV.rtx.flow[j]];
          s += fmtT(EV.rtx.t[j]) + ' ' + esc(D.triggers[EV.rtx.trig[j]] || '?') + ' \u00d7' + EV.rtx.segs[j] + ' ' + esc(f ? f.label + ' (' + f.host + ')' : '') + '<br>';
        }
      } else if (lane === 'drop') {
        s = '<b>' + evs.length + (evs.length >= 50 ? '+' : '') + ' drop(s)</b><br>';
        for (const j of evs.slice(0, max)) {
          const rsn = EV.reasons[EV.drop.reason[j]], f = D.ifaces[EV.drop.iface[j] - 1];
          s += fmtT(EV.drop.t[j]) + ' <b>' + esc(rsn ? rsn.name : '?') + '</b>' + (rsn && rsn.congestion ? ' (congestion)' : '') + ' ' + esc(f ? f.label : 'no device') + '<br>';
        }
      } else if (lane === 'ce') {
        s = '<b>CE marks</b><br>';
        for (const j of evs.slice(0, max)) {
          const tr = EV.ce.track[j], f = D.ifaces[Math.floor(tr / 2)];
          s += fmtT(EV.ce.t[j]) + ' ' + EV.ce.pkts[j] + ' pkts ' + (tr % 2 ? 'tx ' : 'rx ') + esc(f ? f.label : '') + '<br>';
        }
      } else {
        s = '<b>counter spikes</b><br>';
        for (const e of evs.slice(0, max)) {
          const ser = D.ctr_series[e[0]] || { name: '?', cls: 0 }, g = D.ctr_groups[ser.group];
          s += esc(ser.name) + ' (' + esc(CLS_NAMES[ser.cls]) + ', ' + esc(g ? g.label : '') + '): +' + e[3] + ' over ' + fmtDur(e[2] - e[1]) + ', peak ' + fmtRate(e[4]) + '<br>';
        }
      }
      if (evs.length > max) s += '\u2026';
      return s;
    }

    function showTip(html, xc, yc) {
      if (!html) { tip.hidden = true; return; }
      tip.innerHTML = html;
      tip.hidden = false;
      const r = tip.getBoundingClientRect();
      let x = xc + 14, y = yc + 14;
      if (x + r.width > window.innerWidth - 4) x = xc - r.width - 10;
      if (y + r.height > window.innerHeight - 4) y = yc - r.height - 10;
      tip.style.left = Math.max(2, x) + 'px';
      tip.style.top = Math.max(2, y) + 'px';
    }

    /* ------------------------------------------------------------------ selection and details */

    const details = el('ft-details'), dbody = el('ft-details-body'), dtitle = el('ft-details-title');

    function verdictBadge(v) { return '<span class="ft-verdict ft-v-' + esc(VERDICTS[v]) + '">' + esc(VERDICTS[v]) + '</span>'; }
    function row2(k, v) { return '<tr><th>' + esc(k) + '</th><td>' + v + '</td></tr>'; }

    function ifLabel(i) { const f = D.ifaces[i]; return f ? f.label : '-'; }
    function qLabel(q) {
      const d = D.qdiscs[q];
      return d ? d.kind + ' ' + (d.handle >>> 16).toString(16) + ': on ' + ifLabel(d.iface) : '-';
    }

    // where its time went (docs/verdicts.md): the shares of its budget, the leading one first
    function budgetTable(ii) {
      const tot = I.lx[ii];
      function part(k, ns, extra) { return row2(k, fmtDur(ns) + (tot ? ' (' + fmtNum(100 * ns / tot, 0) + '%)' : '') + (extra || '')); }
      let h = '<h4 id="ft-budget">Time budget' + (SHARES[I.b_lead[ii]] ? ': ' + esc(SHARES[I.b_lead[ii]]) + ' leads' : '') + '</h4><table>';
      h += part('waiting', I.b_wait[ii], I.b_wrank[ii] ? ' for ' + esc(rankName(I.b_wrank[ii] - 1)) : '');
      h += part('network', I.b_net[ii], I.b_link[ii] ? ' on ' + esc(ifLabel(I.b_link[ii] - 1)) : '');
      h += part('unexplained', I.b_unexp[ii]);
      h += part('usual', I.b_usual[ii], ' (expected transfer ' + fmtDur(I.b_exp[ii]) + ')');
      return h + '</table>';
    }

    function instDetails(ii) {
      const why = [];
      for (const w of WHY) if (I.why[ii] & w.bit) why.push(w.label);
      const fl = I.flags[ii];
      let h = '<div>' + verdictBadge(I.verdict[ii]) + ' <b>' + esc(instName(ii)) + '</b></div>';
      const ev = EVID.get(ii);
      if (ev) h += '<div class="text" id="ft-verdict-text">' + esc(ev.text) + '</div>';
      if (why.length) h += '<div>why: ' + esc(why.join(', ')) + '</div>';
      h += budgetTable(ii);
      h += '<h4>Collective</h4><table>';
      h += row2('op, seq', esc(OPS[I.op[ii]]) + ' #' + I.seq[ii]);
      h += row2('communicator', esc(I.comms[I.comm[ii]] || '-') + ', ' + I.nranks[ii] + ' ranks');
      h += row2('size', fmtBytes(I.size[ii]));
      h += row2('first entry', fmtT(I.fe[ii]) + '<br>' + esc(fmtWall(I.fe[ii])));
      h += row2('span', fmtDur(I.lx[ii]) + (I.slow[ii] ? ' (' + fmtNum(optNum(I.slow[ii], 1000), 1) + '\u00d7 its expected transfer)' : ''));
      h += row2('entry skew', fmtDur(I.le[ii]));
      h += row2('all-arrived', fmtDur(I.lx[ii] - I.le[ii]));
      h += row2('bus / alg bandwidth', fmtBw(optNum(I.busbw[ii], 1)) + ' / ' + fmtBw(optNum(I.algbw[ii], 1)));
      if (I.step[ii]) h += row2('step', String(I.step[ii] - 1));
      if (I.strag[ii]) h += row2('entered last', '<span class="' + (isStraggler(ii) ? 'ft-strag' : '') + '">' + esc(rankName(I.strag[ii] - 1)) + '</span>' +
        ', own lateness ' + fmtDur(I.own_late[ii]) + (isStraggler(ii) ? ' (straggler)' : ''));
      const notes = [];
      if (fl & 1) notes.push('NCCL enqueue times, not completion');
      if (fl & 2) notes.push('still open at stop');
      if (fl & 4) notes.push('not every rank seen');
      if (fl & 8) notes.push('ops differ across ranks');
      if (notes.length) h += row2('notes', esc(notes.join('; ')));
      h += '</table>';
      /* members */
      h += '<h4>Ranks</h4><table><tr><th>rank</th><th>host</th><th class="num">entry</th><th class="num">wait</th><th class="num">exit</th><th class="num">bytes</th></tr>';
      const le = I.fe[ii] + I.le[ii];
      for (let m = I.mstart[ii]; m < I.mstart[ii + 1]; m++) {
        const c = I.members[m], rr = C.rank[c] - 1;
        const strag = I.strag[ii] - 1 === rr;
        h += '<tr' + (strag ? ' class="ft-strag"' : '') + '><td>' + esc(rankName(rr)) + (strag ? ' \u2691' : '') + '</td><td>' + esc(ranks[rr] ? ranks[rr].host : '') + '</td>' +
          '<td class="num">+' + fmtDur(C.start[c] - I.fe[ii]) + '</td><td class="num">' + fmtDur(Math.max(0, le - C.start[c])) + '</td>' +
          '<td class="num">+' + fmtDur(C.start[c] + C.dur[c] - I.fe[ii]) + '</td><td class="num">' + fmtBytes(C.bytes[c]) + '</td></tr>';
      }
      h += '</table>';
      /* evidence */
      h += '<h4>Network evidence in its window</h4><table>';
      if (!(fl & 32)) h += row2('observed', 'no traced interface in the ranks\u2019 namespaces');
      h += row2('queue delay', fmtDur(I.qd[ii]) + ' (sojourn max ' + fmtDur(I.soj[ii]) + ', backlog ' + fmtBytes(I.backlog[ii]) + ')');
      h += row2('drops', I.drops[ii] + ' (' + I.cdrops[ii] + ' congestion)');
      h += row2('retransmits', I.rtx[ii] + (I.tlp[ii] ? ' (' + I.tlp[ii] + ' tail-loss probes)' : ''));
      h += row2('CE marks', String(I.ce[ii]));
      h += row2('bursts', String(I.bursts[ii]));
      if (I.ctr_cong[ii] || I.ctr_pause[ii] || I.ctr_loss[ii])
        h += row2('counter spikes', 'congestion +' + I.ctr_cong[ii] + ', pause +' + I.ctr_pause[ii] + ', retransmission/discard +' + I.ctr_loss[ii]);
      h += row2('peak bin, of the line rate', Number.isFinite(optNum(I.util[ii], 10000)) ? fmtNum(optNum(I.util[ii], 10000) * 100, 1) + ' %' : '-');
      if (I.link[ii]) h += row2('culprit link', esc(ifLabel(I.link[ii] - 1)));
      if (I.qdisc[ii]) h += row2('culprit queue', esc(qLabel(I.qdisc[ii] - 1)));
      h += '</table>';
      if (ev) {
        if (ev.links.length) {
          h += '<h4>Links</h4><table><tr><th>link</th><th class="num">rx / tx</th><th class="num">peak bin, of line</th><th class="num">queue</th><th class="num">drops</th></tr>';
          for (const l of ev.links) {
            const u = Math.max(l.util[0] === null ? -1 : l.util[0], l.util[1] === null ? -1 : l.util[1]);
            h += '<tr><td>' + esc(ifLabel(l.iface)) + (l.qdisc >= 0 ? '<br><span class="k">' + esc(qLabel(l.qdisc)) + '</span>' : '') + '</td>' +
              '<td class="num">' + fmtBytes(l.bytes[0]) + ' / ' + fmtBytes(l.bytes[1]) + '</td><td class="num">' + (u >= 0 ? fmtNum(u * 100, 1) + ' %' : '-') + '</td>' +
              '<td class="num">' + fmtDur(l.qdelay) + '<br>' + fmtBytes(l.backlog) + '</td><td class="num">' + (l.drops + l.qdrops) + '</td></tr>';
          }
          h += '</table>';
        }
        if (ev.drops.length) {
          h += '<h4>Drops</h4><table>';
          for (const d of ev.drops) h += '<tr><td>' + esc(d.reason) + (d.congestion ? ' (congestion)' : '') + '</td><td>' + esc(d.iface >= 0 ? ifLabel(d.iface) : '-') + '</td><td class="num">' + d.count + '</td></tr>';
          h += '</table>';
        }
        if (ev.ctrs && ev.ctrs.length) {
          h += '<h4>Counters that spiked</h4><table>';
          for (const k of ev.ctrs) {
            const ser = D.ctr_series[k.series] || { name: '?', cls: 0, group: -1 }, g = D.ctr_groups[ser.group];
            h += '<tr><td>' + esc(ser.name) + '<br><span class="k">' + esc(g ? g.label : '') + ' \u00b7 ' + esc(CLS_NAMES[ser.cls] || '') + '</span></td><td class="num">+' + k.growth + '</td><td class="num">' + fmtRate(k.peak_rate) + '</td></tr>';
          }
          h += '</table>';
        }
        if (ev.flows.length) {
          h += '<h4>Retransmitting flows</h4><table>';
          for (const f of ev.flows) {
            const fl2 = D.flows[f.flow];
            h += '<tr><td>' + esc(fl2 ? fl2.label : '?') + '</td><td>' + esc(fl2 && fl2.rank >= 0 ? 'rank ' + fl2.rank : fl2 ? fl2.host : '') + '</td><td class="num">' + f.rtx + '</td></tr>';
          }
          h += '</table>';
        }
      } else {
        h += '<div class="k">Full evidence (links, drops, flows) is embedded for the ' + D.evidence.items.length + ' slowest and flagged collectives only; this one shows its summary.</div>';
      }
      h += '<p><button type="button" id="ft-zoom-sel">zoom to it (F)</button></p>';
      return h;
    }

    function callDetails(c) {
      return '<div><b>' + esc(OPS[C.op[c]]) + '</b> on ' + esc(rankName(C.rank[c] - 1)) + '</div><table>' +
        row2('entry', fmtT(C.start[c])) + row2('duration', fmtDur(C.dur[c])) + row2('bytes', fmtBytes(C.bytes[c])) +
        (C.peer[c] ? row2('peer', String(C.peer[c] - 1)) : '') + row2('matched across ranks', 'no') + '</table>';
    }

    function select(sel, opts) {
      selected = sel;
      if (!sel) {
        details.hidden = true;
        requestDraw();
        window.setTimeout(resize, 0);
        return;
      }
      if (sel.kind === 'inst') {
        dtitle.textContent = instName(sel.i) + ' \u2014 ' + VERDICTS[I.verdict[sel.i]];
        dbody.innerHTML = instDetails(sel.i);
        const zb = el('ft-zoom-sel');
        if (zb) zb.onclick = function () { zoomTo(sel.i); };
        details.dataset.verdict = VERDICTS[I.verdict[sel.i]];
        details.dataset.inst = String(sel.i);
      } else if (sel.kind === 'call') {
        dtitle.textContent = OPS[C.op[sel.i]];
        dbody.innerHTML = callDetails(sel.i);
        details.dataset.verdict = '';
        details.dataset.inst = '';
      }
      const wasHidden = details.hidden;
      details.hidden = false;
      if (opts && opts.zoom && sel.kind === 'inst') zoomTo(sel.i);
      if (wasHidden) resize(); else requestDraw();
    }

    function zoomTo(ii) {
      const fe = I.fe[ii], lx = instEnd(ii), pad = Math.max(2 * MIN_SPAN, (lx - fe) * 0.35);
      setView(fe - pad, lx + pad);
      /* bring the first member's rank into view */
      const c = I.members[I.mstart[ii]];
      if (c !== undefined) scrollToRank(C.rank[c] - 1, false);
    }

    function scrollToRank(ri, flash) {
      const rr = R[ri];
      if (!rr || !rr.row) return;
      const vis = cssH - TOP_H;
      const st = scrollY();
      if (rr.row.y < st || rr.row.y + rr.row.h > st + vis) scroller.scrollTop = Math.max(0, rr.row.y - 40);
      if (flash) { flashRank = ri; flashUntil = performance.now() + 1500; window.setTimeout(requestDraw, 1600); }
      requestDraw();
    }

    /* navigation over flagged collectives */
    const FLAGGED = [];
    for (let i = 0; i < I.n; i++) if (I.verdict[i] !== 0) FLAGGED.push(i);
    function stepFlagged(dir) {
      if (!FLAGGED.length) return;
      const cur = selected && selected.kind === 'inst' ? I.fe[selected.i] : (dir > 0 ? -Infinity : Infinity);
      let pick = -1;
      if (dir > 0) { for (const i of FLAGGED) if (I.fe[i] > cur) { pick = i; break; } if (pick < 0) pick = FLAGGED[0]; }
      else { for (let k = FLAGGED.length - 1; k >= 0; k--) if (I.fe[FLAGGED[k]] < cur) { pick = FLAGGED[k]; break; } if (pick < 0) pick = FLAGGED[FLAGGED.length - 1]; }
      select({ kind: 'inst', i: pick }, { zoom: true });
    }

    /* ------------------------------------------------------------------ search */

    const search = el('ft-search'), results = el('ft-results');
    let lastMatches = [], matchPos = -1;

    function parseQuery(q) {
      const f = { rank: null, seq: null, step: null, ops: [], verdicts: [], straggler: false, slow: false, bad: [] };
      let s = q.toLowerCase().trim();
      s = s.replace(/\b(rank|r|seq|step)\s*[:=#]?\s*(\d+)\b/g, function (m0, k, n) {
        if (k === 'rank' || k === 'r') f.rank = +n; else if (k === 'seq') f.seq = +n; else f.step = +n;
        return ' ';
      });
      for (const tok of s.split(/[\s,]+/)) {
        if (!tok) continue;
        if (/^#?\d+$/.test(tok)) { f.seq = +tok.replace('#', ''); continue; }
        if (tok === 'straggler' || tok === 'late') { f.straggler = true; continue; }
        if (tok === 'slow') { f.slow = true; continue; }
        const vi = VERDICTS.indexOf(tok === 'rank-bound' ? 'rank' : tok === 'net' ? 'network' : tok === 'flagged' ? '' : tok);
        if (tok === 'flagged') { f.verdicts.push(1, 2, 3); continue; }
        if (vi >= 0) { f.verdicts.push(vi); continue; }
        const ops = [];
        for (let o = 0; o < OPS.length; o++) if (OPS[o].indexOf(tok.replace('-', '_')) === 0) ops.push(o);
        if (ops.length) { f.ops.push.apply(f.ops, ops); continue; }
        f.bad.push(tok);
      }
      return f;
    }

    function runSearch(q) {
      const f = parseQuery(q);
      const out = [];
      if (f.bad.length && !f.ops.length && f.rank === null && f.seq === null) return { f: f, m: out };
      for (let i = 0; i < I.n; i++) {
        if (f.seq !== null && I.seq[i] !== f.seq) continue;
        if (f.step !== null && I.step[i] - 1 !== f.step) continue;
        if (f.ops.length && f.ops.indexOf(I.op[i]) < 0) continue;
        if (f.verdicts.length && f.verdicts.indexOf(I.verdict[i]) < 0) continue;
        if (f.straggler && !isStraggler(i)) continue;
        if (f.slow && !(I.flags[i] & 16)) continue;
        if (f.rank !== null) {
          if (f.straggler) { if (!(I.strag[i] && ranks[I.strag[i] - 1].rank === f.rank)) continue; } else {
            let any = false;
            for (let m = I.mstart[i]; m < I.mstart[i + 1] && !any; m++) { const rr = ranks[C.rank[I.members[m]] - 1]; any = rr && rr.rank === f.rank; }
            if (!any) continue;
          }
        }
        out.push(i);
      }
      return { f: f, m: out };
    }

    function showResults(q) {
      if (!q.trim()) { results.hidden = true; lastMatches = []; return; }
      const r = runSearch(q);
      lastMatches = r.m;
      matchPos = -1;
      let h = '';
      if (r.f.rank !== null && !r.m.length && !r.f.ops.length) h += '<div class="none">no collectives on rank ' + r.f.rank + '</div>';
      if (!r.m.length && !h) h = '<div class="none">no match' + (r.f.bad.length ? ' (not understood: ' + esc(r.f.bad.join(' ')) + ')' : '') + '</div>';
      const maxShow = 200;
      for (let k = 0; k < r.m.length && k < maxShow; k++) {
        const i = r.m[k];
        h += '<div data-i="' + i + '">' + esc(instName(i)) + ' \u00b7 ' + fmtT(I.fe[i]) + ' \u00b7 ' + fmtDur(I.lx[i]) + ' \u00b7 ' + verdictBadge(I.verdict[i]) + '</div>';
      }
      if (r.m.length > maxShow) h += '<div class="none">\u2026 ' + (r.m.length - maxShow) + ' more (Enter steps through all)</div>';
      if (r.m.length) h = '<div class="none">' + r.m.length + ' collective(s)</div>' + h;
      results.innerHTML = h;
      results.hidden = false;
      if (r.f.rank !== null) {
        for (let ri = 0; ri < NR; ri++) if (ranks[ri].rank === r.f.rank) { scrollToRank(ri, true); break; }
      }
    }

    search.addEventListener('input', function () { showResults(search.value); });
    search.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') {
        if (!lastMatches.length) showResults(search.value);
        if (lastMatches.length) {
          matchPos = (matchPos + (e.shiftKey ? -1 : 1) + lastMatches.length) % lastMatches.length;
          select({ kind: 'inst', i: lastMatches[matchPos] }, { zoom: true });
        }
        e.preventDefault();
      } else if (e.key === 'Escape') {
        results.hidden = true;
        search.blur();
      }
      e.stopPropagation();
    });
    results.addEventListener('click', function (e) {
      const d = e.target.closest('div[data-i]');
      if (!d) return;
      select({ kind: 'inst', i: +d.dataset.i }, { zoom: true });
    });

    /* ------------------------------------------------------------------ legend, notes, status */

    function buildLegend() {
      let h = '<div class="cols"><div><h4>Flame chart (host \u25b8 rank)</h4>';
      h += '<div class="row"><span class="sw" style="background:' + COL.step + '"></span>step (marker)</div>';
      h += '<div class="row"><span class="sw" style="background:' + COL.mark + '"></span>named phase (marker)</div>';
      h += '<div class="row"><span class="sw" style="background:#0072B2"></span>collective call (op #seq in the bar)</div>';
      h += '<div class="row"><span class="sw" style="background:#999999"></span>other traced call</div>';
      h += '<h4>Sub-phases (strip under the bars)</h4>';
      h += '<div class="row"><span class="sw" style="background:' + COL.wait + '"></span>waiting for the last rank to enter</div>';
      h += '<div class="row"><span class="sw" style="background:' + COL.xfer + '"></span>all ranks in: transfer, network clean</div>';
      h += '<div class="row"><span class="sw" style="background:' + COL.xferBad + '"></span>transfer with congestion evidence</div>';
      h += '<div class="row"><span class="sw" style="background:linear-gradient(#009E73 0 30%,#a6dccb 30% 70%,#009E73 70%)"></span>non-blocking: returned, in flight</div>';
      h += '</div><div><h4>Verdict (stripe under a bar, letter, text)</h4>';
      for (let v = 1; v < VERDICTS.length; v++) h += '<div class="row"><span class="sw" style="background:' + VERDICT_COLORS[v] + '"></span>' + VERDICT_GLYPH[v] + ' = ' + esc(VERDICTS[v]) + '</div>';
      h += '<div class="row"><span class="sw" style="border:2px solid ' + COL.strag + ';background:#fff"></span>straggler\u2019s call (\u25e4 flag)</div>';
      h += '<div class="row"><span class="sw" style="border:2px solid #000;background:#fff"></span>selected / hovered collective, all ranks</div>';
      h += '<h4>Tracks</h4>';
      h += '<div class="row"><span class="sw" style="background:' + COL.txFill + ';border-color:' + COL.tx + '"></span>TX: min\u2013max band, mean line</div>';
      h += '<div class="row"><span class="sw" style="background:' + COL.rxFill + ';border-color:' + COL.rx + '"></span>RX (mirrored below)</div>';
      h += '<div class="row"><span class="sw" style="border-top:2px dashed ' + COL.cap + ';border-bottom:0;border-left:0;border-right:0;height:0"></span>link capacity (the axis never goes above it)</div>';
      h += '<div class="row"><span class="sw" style="background:' + COL.drop + ';height:3px"></span>clipped: bins above the link\'s capacity (GSO super-packets, a shaper\'s bursts)</div>';
      h += '<div class="row"><span class="sw" style="background:' + COL.backlog + '"></span>queue backlog; line: sojourn max</div>';
      h += '<h4>Events</h4>';
      h += '<div class="row"><span style="color:' + COL.rtx + '">\u25b2</span> retransmit &nbsp;<span style="color:' + COL.drop + '">\u2715</span> drop &nbsp;<span style="color:' + COL.ce + '">\u25c6</span> CE mark</div>';
      h += '<div class="row"><span class="sw" style="background:repeating-linear-gradient(45deg,#888 0 2px,#fff 2px 6px)"></span>lost events: data incomplete (not idle)</div>';
      h += '<div class="row"><span class="sw" style="border:1px dashed #777;background:#fff"></span>exact-bin detail window</div>';
      h += '</div></div>';
      el('ft-legend').innerHTML = h;
    }

    function buildNotes() {
      el('ft-answer').textContent = (M.headline || []).join('\n');
      const n = [];
      if (M.truncated) n.push('Truncated capture: ' + (M.truncated_why || 'no end record') + '; showing what is readable.');
      if (M.lost_total) n.push(M.lost_total + ' events were lost while recording (ring buffer full); the hatched ranges are incomplete, not idle.');
      if (M.skipped_runs) n.push(M.skipped_runs + ' tracepoint hits did not run their probe (see fabtrace report).');
      if (!NR && !INF.n) n.push('No collective phases in this capture (record with phase probes, e.g. fabtrace record -- mpiexec ...).');
      if (!NR && INF.n) n.push('Collective phases inferred from synchronised traffic (no phase probes shown): ' + INF.n + ' phases; blue where they match real collectives.');
      if (M.lod.kmin > 0) n.push('Long capture: throughput and queue tracks are embedded down to ' + fmtDur(M.bin * Math.pow(2, M.lod.kmin)) +
        ' cells; exact ' + fmtDur(M.bin) + ' bins are kept in ' + WINDOWS.length + ' detail window(s) around the slowest collectives.');
      if (EV.rtx.omitted || EV.drop.omitted || EV.ce.omitted) n.push('Event markers capped: ' + (EV.rtx.omitted + EV.drop.omitted + EV.ce.omitted) + ' events not embedded (counts in the details remain exact).');
      el('ft-notes').innerHTML = n.map(function (s) { return '<div>' + esc(s) + '</div>'; }).join('');
    }

    const status = el('ft-status');
    function updateStatus() {
      const nspx = nsPerPx();
      let lod = '';
      const tp = TRACKS.find(function (t) { return t.type === 'tp'; });
      if (tp) {
        const p = plan(tp, view.from, view.to, nspx);
        const k = p[0].L ? p[0].L.k : 0;
        lod = k === 0 ? 'exact ' + fmtDur(M.bin) + ' bins' : 'min/max of ' + Math.pow(2, k) + ' bins (' + fmtDur(M.bin * Math.pow(2, k)) + ')' + (p.length > 1 ? ' + exact detail' : '');
      }
      status.textContent = 'view ' + fmtT(view.from) + ' \u2026 ' + fmtT(view.to) + '  (' + fmtDur(view.to - view.from) + ', 1 px = ' + fmtDur(nspx) + ')' +
        (lod ? '  \u00b7  throughput: ' + lod : '') + '  \u00b7  ' + NR + ' ranks, ' + I.n + ' collectives (' + FLAGGED.length + ' flagged)' +
        '  \u00b7  lost events: ' + M.lost_total + '  \u00b7  start ' + M.start_wall;
    }

