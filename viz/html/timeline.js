/* fabtrace HTML timeline (viz/html/timeline.js), inlined by `fabtrace report --html`.
 *
 * Reads the JSON document in <script id="ft-data"> written by viz/html.c
 * (format "fabtrace-html-1"; numeric columns are base64 LEB128 varints,
 * delta-coded columns as zigzag deltas) and draws one canvas:
 *   overview + time axis | flame chart per host > rank (step > collective >
 *   sub-phases) | event lane | throughput per interface | queues | counters
 * Level of detail comes prepared from C: per track a pyramid of min/max/sum
 * cells at power-of-2 multiples of the bin width, plus exact bins (all of
 * them, or inside detail windows).  State for tests and scripts is on
 * window.fabtrace.
 */
(function () {
  'use strict';

  const errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message || e)); });

  /* ------------------------------------------------------------------ decoding */

  function b64bytes(s) {
    const bin = atob(s || '');
    const n = bin.length;
    const u = new Uint8Array(n);
    for (let i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
    return u;
  }

  /* N varints of column REF ([offset, length] in the inflated columns); DELTA: zigzag deltas, accumulated. */
  function dec(ref, n, delta) {
    const u = ref ? BIN.subarray(ref[0], ref[0] + ref[1]) : new Uint8Array(0);
    const out = new Float64Array(n);
    const len = u.length;
    let p = 0, acc = 0;
    for (let i = 0; i < n && p < len; i++) {
      let b = u[p++];
      let v = b & 127;
      if (b & 128) {
        let mul = 128;
        do {
          b = u[p++];
          v += (b & 127) * mul;
          mul *= 128;
        } while ((b & 128) && p < len);
      }
      if (delta) {
        acc += (v % 2) ? -(v + 1) / 2 : v / 2;
        out[i] = acc;
      } else {
        out[i] = v;
      }
    }
    return out;
  }

  const D = JSON.parse(document.getElementById('ft-data').textContent);
  let BIN = new Uint8Array(0);
  let inflater = '';

  /* ------------------------------------------------------------------ inflating the columns
   * One zlib stream (RFC 1950) in #ft-bin.  DecompressionStream where the
   * browser has it; else (or with #inflate=js in the URL) this small
   * inflater (RFC 1951: stored, fixed and dynamic Huffman blocks). */

  const LBASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
  const LEXT = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
  const DBASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
    4097, 6145, 8193, 12289, 16385, 24577];
  const DEXT = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
  const CLORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

  function inflateJs(src, outLen) {
    const out = new Uint8Array(outLen);
    let pos = 2, bitbuf = 0, bitcnt = 0, op = 0; /* 2: the zlib header */
    function bits(n) {
      while (bitcnt < n) {
        if (pos >= src.length) throw new Error('inflate: input ends early');
        bitbuf |= src[pos++] << bitcnt;
        bitcnt += 8;
      }
      const v = bitbuf & ((1 << n) - 1);
      bitbuf >>>= n;
      bitcnt -= n;
      return v;
    }
    function table(lengths, n) {
      const counts = new Uint16Array(16), offs = new Uint16Array(16), syms = new Uint16Array(n);
      for (let i = 0; i < n; i++) counts[lengths[i]]++;
      counts[0] = 0;
      for (let i = 1; i < 16; i++) offs[i] = offs[i - 1] + counts[i - 1];
      for (let i = 0; i < n; i++) if (lengths[i]) syms[offs[lengths[i]]++] = i;
      return { counts: counts, syms: syms };
    }
    function decode(t) {
      let code = 0, first = 0, index = 0;
      for (let len = 1; len < 16; len++) {
        code |= bits(1);
        const count = t.counts[len];
        if (code - first < count) return t.syms[index + code - first];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
      }
      throw new Error('inflate: bad code');
    }
    const fl = new Uint8Array(288), fd = new Uint8Array(30).fill(5);
    for (let i = 0; i < 288; i++) fl[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    const fixedL = table(fl, 288), fixedD = table(fd, 30);
    let last = 0;
    while (!last) {
      last = bits(1);
      const type = bits(2);
      if (type === 0) {
        bitbuf = 0; bitcnt = 0;
        const len = src[pos] | (src[pos + 1] << 8);
        pos += 4;
        out.set(src.subarray(pos, pos + len), op);
        pos += len; op += len;
        continue;
      }
      let lt, dt;
      if (type === 1) { lt = fixedL; dt = fixedD; } else if (type === 2) {
        const nlen = bits(5) + 257, ndist = bits(5) + 1, ncode = bits(4) + 4;
        const cl = new Uint8Array(19);
        for (let i = 0; i < ncode; i++) cl[CLORDER[i]] = bits(3);
        const ct = table(cl, 19);
        const lens = new Uint8Array(nlen + ndist);
        for (let i = 0; i < nlen + ndist;) {
          const sym = decode(ct);
          if (sym < 16) { lens[i++] = sym; continue; }
          let rep = 0, val = 0;
          if (sym === 16) { if (!i) throw new Error('inflate: repeat with no length'); val = lens[i - 1]; rep = 3 + bits(2); }
          else if (sym === 17) rep = 3 + bits(3);
          else rep = 11 + bits(7);
          while (rep--) lens[i++] = val;
        }
        lt = table(lens.subarray(0, nlen), nlen);
        dt = table(lens.subarray(nlen), ndist);
      } else throw new Error('inflate: bad block type');
      for (;;) {
        let sym = decode(lt);
        if (sym < 256) { out[op++] = sym; continue; }
        if (sym === 256) break;
        sym -= 257;
        const len = LBASE[sym] + bits(LEXT[sym]);
        const ds = decode(dt);
        const dist = DBASE[ds] + bits(DEXT[ds]);
        for (let k = 0; k < len; k++, op++) out[op] = out[op - dist];
      }
    }
    return out;
  }

  function loadColumns() {
    const z = b64bytes(document.getElementById('ft-bin').textContent.trim());
    const raw = D.bin_raw;
    const forceJs = /inflate=js/.test(location.hash);
    if (!forceJs && typeof DecompressionStream === 'function') {
      inflater = 'stream';
      const stream = new Blob([z]).stream().pipeThrough(new DecompressionStream('deflate'));
      return new Response(stream).arrayBuffer().then(function (b) { return new Uint8Array(b); });
    }
    inflater = 'js';
    return Promise.resolve(inflateJs(z, raw));
  }

  loadColumns().then(function (b) {
    if (b.length !== D.bin_raw) throw new Error('the embedded data is ' + b.length + ' bytes, ' + D.bin_raw + ' expected');
    BIN = b;
    main();
  }).catch(function (e) {
    errors.push('loading the data: ' + (e && e.message ? e.message : e));
    const n = document.getElementById('ft-notes');
    n.textContent = 'fabtrace: could not load the embedded data (' + (e && e.message ? e.message : e) + ').';
    if (window.console) console.error(e);
  });

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
    function opColor(op) { return COLLECTIVE_OPS[OPS[op]] ? '#0072B2' : '#999999'; }
    const VERDICT_COLORS = ['#009E73', '#D55E00', '#CC79A7', '#999999'];
    const VERDICT_GLYPH = ['', 'N', 'R', '?'];
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
    const WHY = [['queue', 'queueing >= threshold'], ['drops', 'congestion drops'], ['retrans', 'retransmits'],
      ['ce', 'ECN CE marks'], ['util', 'link near capacity (supporting)'], ['straggler', 'a rank entered late'],
      ['slow', 'slow for its kind'], ['unobserved', 'network not traced there'], ['cnp', 'congestion-counter spike (CNP, ECN, xmit wait)'],
      ['pause', 'pause/PFC counter spike'], ['rdma_loss', 'RDMA retransmission or discard counter spike']];
    const WHY_CONGESTION = 0x70F;

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
        'ce', 'bursts', 'util', 'link', 'qdisc', 'ctr_cong', 'ctr_pause', 'ctr_loss'];
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
    function isStraggler(ii) { return (I.why[ii] & 32) !== 0; }

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

    function instDetails(ii) {
      const why = [];
      for (let b = 0; b < WHY.length; b++) if (I.why[ii] & (1 << b)) why.push(WHY[b][1]);
      const fl = I.flags[ii];
      let h = '<div>' + verdictBadge(I.verdict[ii]) + ' <b>' + esc(instName(ii)) + '</b></div>';
      const ev = EVID.get(ii);
      if (ev) h += '<div class="text" id="ft-verdict-text">' + esc(ev.text) + '</div>';
      if (why.length) h += '<div>why: ' + esc(why.join(', ')) + '</div>';
      h += '<h4>Collective</h4><table>';
      h += row2('op, seq', esc(OPS[I.op[ii]]) + ' #' + I.seq[ii]);
      h += row2('communicator', esc(I.comms[I.comm[ii]] || '-') + ', ' + I.nranks[ii] + ' ranks');
      h += row2('size', fmtBytes(I.size[ii]));
      h += row2('first entry', fmtT(I.fe[ii]) + '<br>' + esc(fmtWall(I.fe[ii])));
      h += row2('span', fmtDur(I.lx[ii]) + (I.slow[ii] ? ' (' + fmtNum(optNum(I.slow[ii], 1000), 1) + '\u00d7 the median)' : ''));
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
      h += row2('peak utilisation', Number.isFinite(optNum(I.util[ii], 10000)) ? fmtNum(optNum(I.util[ii], 10000) * 100, 1) + ' %' : '-');
      if (I.link[ii]) h += row2('culprit link', esc(ifLabel(I.link[ii] - 1)));
      if (I.qdisc[ii]) h += row2('culprit queue', esc(qLabel(I.qdisc[ii] - 1)));
      h += '</table>';
      if (ev) {
        if (ev.links.length) {
          h += '<h4>Links</h4><table><tr><th>link</th><th class="num">rx / tx</th><th class="num">peak util</th><th class="num">queue</th><th class="num">drops</th></tr>';
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
