// viz/html/timeline/1-decode.js: part 1 of the timeline's script.  The parts in viz/html/timeline/ are
// one script, split by concern: the Makefile joins them in order into
// $(BUILD)/viz_html/timeline.js, dropping these leading // lines, and
// viz/html.c inlines it into the page.
// The script's opening: the IIFE, error capture, decoding of the varint
// columns, inflating the zlib stream (DecompressionStream, else a small
// inflater in JS), then main() (which parts 2-6 are the body of).
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

