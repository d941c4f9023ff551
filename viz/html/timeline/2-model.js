// viz/html/timeline/2-model.js: part 2 of the timeline's script.  The parts in viz/html/timeline/ are
// one script, split by concern: the Makefile joins them in order into
// $(BUILD)/viz_html/timeline.js, dropping these leading // lines, and
// viz/html.c inlines it into the page.
// Inside main(): number formatting, colours, and the model the page's JSON
// describes, decoded into typed columns (calls, spans, collectives,
// evidence, inferred phases, events) and per-rank indexes.
  function main() {
    const M = D.meta;
    const DUR = Math.max(1, M.duration);
    const OPS = D.ops, VERDICTS = D.verdicts;

    /* ------------------------------------------------------------------ formatting */

    function fmtNum(v, d) { return Number.isFinite(v) ? v.toFixed(d) : '-'; }
    function sig(v) {
      const a = Math.abs(v);
      return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
    }
    function fmtDur(ns) {
      if (!Number.isFinite(ns)) return '-';
      const a = Math.abs(ns);
      if (a >= 1e9) return sig(ns / 1e9) + ' s';
      if (a >= 1e6) return sig(ns / 1e6) + ' ms';
      if (a >= 1e3) return sig(ns / 1e3) + ' \u00b5s';
      return Math.round(ns) + ' ns';
    }
    function fmtT(ns) { return (ns < 0 ? '-' : '+') + (Math.abs(ns) / 1e9).toFixed(6) + ' s'; }
    function fmtWall(ns) {
      const ms = M.start_wall_ms + ns / 1e6;
      const d = new Date(Math.floor(ms));
      if (isNaN(d.getTime())) return '';
      const us = Math.floor((ms - Math.floor(ms)) * 1000);
      return d.toISOString().replace('Z', '') + String(us).padStart(3, '0') + 'Z';
    }
    function fmtBytes(b) {
      if (!Number.isFinite(b)) return '-';
      if (b >= 1e9) return sig(b / 1e9) + ' GB';
      if (b >= 1e6) return sig(b / 1e6) + ' MB';
      if (b >= 1e3) return sig(b / 1e3) + ' kB';
      return Math.round(b) + ' B';
    }
    function fmtBits(bps) {
      if (!Number.isFinite(bps)) return '-';
      if (bps >= 1e9) return sig(bps / 1e9) + ' Gbit/s';
      if (bps >= 1e6) return sig(bps / 1e6) + ' Mbit/s';
      if (bps >= 1e3) return sig(bps / 1e3) + ' kbit/s';
      return Math.round(bps) + ' bit/s';
    }
    function fmtBw(Bps) { return Number.isFinite(Bps) ? (Bps / 1e9).toFixed(3) + ' GB/s' : '-'; }
    function fmtRate(r) {
      if (!Number.isFinite(r)) return '-';
      if (r >= 1e9) return sig(r / 1e9) + ' G/s';
      if (r >= 1e6) return sig(r / 1e6) + ' M/s';
      if (r >= 1e3) return sig(r / 1e3) + ' k/s';
      return sig(r) + ' /s';
    }
    function esc(s) {
      return String(s).replace(/[&<>"']/g, function (c) {
        return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
      });
    }
    function optNum(v, scale) { return v ? (v - 1) / scale : NaN; }

    /* ------------------------------------------------------------------ colours
     * Okabe & Ito's palette (colour-blind safe), by meaning as in viz/common.h;
     * verdicts also carry a letter and text, events a shape. */
    const COLLECTIVE_OPS = { allreduce: 1, reduce_scatter: 1, allgather: 1, bcast: 1, reduce: 1, alltoall: 1, barrier: 1, gather: 1, scatter: 1 };
    // own keys only: a --phase NAME such as "toString" is no collective
    function opColor(op) { return Object.prototype.hasOwnProperty.call(COLLECTIVE_OPS, OPS[op]) ? '#0072B2' : '#999999'; }
    // the verdicts' colours and letters, and the evidence bits, come with the data (viz/common.c, correlate/names.c)
    const VERDICT_COLORS = D.verdict_colors, VERDICT_GLYPH = D.verdict_glyphs, SHARES = D.shares;
    const COL = {
      step: '#DDDDDD', stepLine: '#8A8A8A', mark: '#B7DDF4', markLine: '#56B4E9',
      wait: '#E69F00', xfer: '#009E73', xferBad: '#D55E00',
      tx: '#0072B2', txFill: 'rgba(0,114,178,0.28)', rx: '#009E73', rxFill: 'rgba(0,158,115,0.28)',
      backlog: 'rgba(213,94,0,0.35)', sojourn: '#000000', ctr: '#CC79A7',
      rtx: '#E69F00', drop: '#D55E00', ce: '#56B4E9', cap: '#555555', sel: '#000000', strag: '#CC79A7',
      grid: '#ECECEC', text: '#1B1B1B', muted: '#666666', lost: 'rgba(90,90,90,0.55)'
    };
    const CLS_NAMES = ['other', 'data', 'congestion', 'retrans', 'discard', 'link_err', 'pause', 'buffer'];
    const CLS_COLORS = ['#999999', '#0072B2', '#009E73', '#E69F00', '#D55E00', '#000000', '#CC79A7', '#56B4E9'];
    const WHY = D.why, WHY_CONGESTION = D.why_congestion;
    const WHY_STRAGGLER = (WHY.find(function (w) { return w.name === 'straggler'; }) || { bit: 0 }).bit;

    /* ------------------------------------------------------------------ the model */

    const ranks = D.ranks;
    const NR = ranks.length;
    const C = (function () {
      const c = D.calls, n = c.n;
      return {
        n: n, rank: dec(c.rank, n), start: dec(c.start, n, true), dur: dec(c.dur, n), ret: dec(c.ret, n),
        op: dec(c.op, n), bytes: dec(c.bytes, n), seq: dec(c.seq, n), inst: dec(c.inst, n),
        flags: dec(c.flags, n), span: dec(c.span, n), step: dec(c.step, n), peer: dec(c.peer, n)
      };
    })();
    const S = (function () {
      const s = D.spans, n = s.n;
      return {
        n: n, names: s.names, rank: dec(s.rank, n), kind: dec(s.kind, n), start: dec(s.start, n, true),
        dur: dec(s.dur, n), name: dec(s.name, n), step: dec(s.step, n), depth: dec(s.depth, n),
        parent: dec(s.parent, n), open: dec(s.open, n)
      };
    })();
    const I = (function () {
      const s = D.insts, n = s.n;
      const o = { n: n, comms: s.comms };
      const cols = ['op', 'seq', 'comm', 'nranks', 'size', 'le', 'fx', 'lx', 'strag', 'own_late', 'verdict', 'why',
        'busbw', 'algbw', 'slow', 'step', 'flags', 'nm', 'qd', 'soj', 'backlog', 'drops', 'cdrops', 'rtx', 'tlp',
        'ce', 'bursts', 'util', 'link', 'qdisc', 'ctr_cong', 'ctr_pause', 'ctr_loss',
        'b_wait', 'b_wrank', 'b_net', 'b_unexp', 'b_usual', 'b_exp', 'b_lead', 'b_link'];
      for (const k of cols) o[k] = dec(s[k], n);
      o.fe = dec(s.fe, n, true);
      o.mstart = new Float64Array(n + 1);
      let tot = 0;
      for (let i = 0; i < n; i++) { o.mstart[i] = tot; tot += o.nm[i]; }
      o.mstart[n] = tot;
      o.members = dec(s.members, tot);
      return o;
    })();
    const EVID = new Map();
    for (const e of D.evidence.items) EVID.set(e.i, e);
    const INF = (function () {
      const f = D.inferred, n = f.n;
      return {
        n: n, start: dec(f.start, n, true), dur: dec(f.dur, n), hosts: dec(f.hosts, n), tx: dec(f.tx, n),
        matched: dec(f.matched, n),
        act: f.hosts_act.map(function (h) { return { name: h.name, n: h.n, start: dec(h.start, h.n, true), dur: dec(h.dur, h.n) }; })
      };
    })();
    const EV = (function () {
      const e = D.events;
      return {
        rtx: { n: e.rtx.n, omitted: e.rtx.omitted, t: dec(e.rtx.t, e.rtx.n, true), flow: dec(e.rtx.flow, e.rtx.n),
          trig: dec(e.rtx.trig, e.rtx.n), segs: dec(e.rtx.segs, e.rtx.n) },
        drop: { n: e.drop.n, omitted: e.drop.omitted, t: dec(e.drop.t, e.drop.n, true),
          reason: dec(e.drop.reason, e.drop.n), iface: dec(e.drop.iface, e.drop.n) },
        ce: { n: e.ce.n, omitted: e.ce.omitted, t: dec(e.ce.t, e.ce.n, true), track: dec(e.ce.track, e.ce.n),
          pkts: dec(e.ce.pkts, e.ce.n) },
        reasons: e.reasons, lost: e.lost, ctr: (function () {
          const c = e.ctr, n = c.n, ser = dec(c.series, n), t = dec(c.t, n, true), du = dec(c.dur, n),
            de = dec(c.delta, n), pk = dec(c.peak, n), ni = dec(c.nint, n);
          const out = [];
          for (let i = 0; i < n; i++) out.push([ser[i], t[i], t[i] + du[i], de[i], pk[i], ni[i]]);
          return out;
        })()
      };
    })();

    /* per rank: its calls and spans (sorted by start), their depth and the longest duration */
    const R = ranks.map(function (r, i) {
      return { i: i, r: r, calls: [], spans: [], maxCall: 0, maxSpan: 0, depths: 1, row: null };
    });
    const spanDepth = new Float64Array(S.n);
    for (let i = 0; i < S.n; i++) {
      spanDepth[i] = S.depth[i];
      const ri = S.rank[i] - 1;
      if (ri < 0 || ri >= NR) continue;
      const rr = R[ri];
      rr.spans.push(i);
      if (S.dur[i] > rr.maxSpan) rr.maxSpan = S.dur[i];
      if (S.depth[i] + 1 > rr.depths) rr.depths = S.depth[i] + 1;
    }
    const callDepth = new Float64Array(C.n);
    for (let i = 0; i < C.n; i++) {
      const ri = C.rank[i] - 1;
      if (ri < 0 || ri >= NR) continue;
      const rr = R[ri];
      const sp = C.span[i] - 1;
      callDepth[i] = sp >= 0 ? spanDepth[sp] + 1 : 0;
      rr.calls.push(i);
      if (C.dur[i] > rr.maxCall) rr.maxCall = C.dur[i];
      if (callDepth[i] + 1 > rr.depths) rr.depths = callDepth[i] + 1;
    }
    for (const rr of R) {
      rr.calls.sort(function (a, b) { return C.start[a] - C.start[b] || a - b; });
      rr.spans.sort(function (a, b) { return S.start[a] - S.start[b] || a - b; });
      rr.callStart = Float64Array.from(rr.calls, function (i) { return C.start[i]; });
      rr.spanStart = Float64Array.from(rr.spans, function (i) { return S.start[i]; });
    }
    function rankName(ri) {
      if (ri < 0 || ri >= NR) return '-';
      const r = ranks[ri];
      return r.rank >= 0 ? 'rank ' + r.rank : 'pid ' + r.pid;
    }
    function instName(ii) { return OPS[I.op[ii]] + ' #' + I.seq[ii]; }
    function instEnd(ii) { return I.fe[ii] + I.lx[ii]; }
    function isStraggler(ii) { return (I.why[ii] & WHY_STRAGGLER) !== 0; }

