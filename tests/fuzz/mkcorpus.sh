#!/usr/bin/env bash
# Regenerate the seed corpora in tests/fuzz/corpus/ (docs/fuzzing.md):
#   fuzz_capture/   synthcap captures, a few shapes, named .capture (.gitignore ignores
#                   *.ftr); the real_*.capture ones are kept: they were recorded on a
#                   real kernel, see docs/fuzzing.md
#   fuzz_elf/       tiny libraries and an executable built here (gcc, g++)
#   the others      tests/fuzz/mkcorpus.py (records, parsers, symbols, report
#                   command lines, the sysfs fixture tree)
# Usage: tests/fuzz/mkcorpus.sh   (needs $BUILD/tools/synthcap: make)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
synthcap=$BUILD/tools/synthcap
corpus=tests/fuzz/corpus
cap=$corpus/fuzz_capture
elf=$corpus/fuzz_elf
[[ -x $synthcap ]] || { echo "mkcorpus: $synthcap missing; run make first" >&2; exit 2; }
mkdir -p "$cap" "$elf"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- small captures: every record kind synthcap writes, a few shapes
s() { local out=$1; shift; "$synthcap" -q -o "$cap/$out" "$@"; }
s synth_default.capture --duration 400ms --congest 2:2 --straggler 1:3
s synth_3hosts.capture --duration 150ms --period 50ms --compute 5ms --optimizer 1ms --size 64k --hosts 3 \
	--congest 2:1 --straggler 2:2:5ms
s synth_plain.capture --duration 100ms --period 50ms --compute 5ms --size 64k --no-rdma --no-steps --straggler none
s synth_2rpp.capture --duration 60ms --period 30ms --compute 5ms --optimizer 1ms --size 256k --straggler 3:1:2ms \
	--ranks-per-host 2 --bin 1ms
# format version 2 (zstd blocks); the real_*.capture ones are version 1 (zlib)
s synth_zstd.capture --duration 100ms --period 50ms --compute 5ms --size 64k --no-rdma --no-steps --straggler 1:1
s synth_lost.capture --duration 80ms --period 40ms --compute 5ms --size 64k --lost-seq 1 --bin-us 50 --straggler none \
	--link-mbit 1000 --congest 1:1-2 --congest-factor 3 --no-rdma

# ---- ELF files: a C library with catalog names, symbol versions, an alias and a
# RUNPATH with $ORIGIN; a C++ one with an RPATH; a stripped copy; a non-PIE executable
cat >"$tmp/mpi.c" <<'EOF'
int MPI_Allreduce(const void *s, void *r, int n, int dt, int op, int comm) { return s != r ? n + dt + op + comm : 0; }
int PMPI_Allreduce(const void *s, void *r, int n, int dt, int op, int comm) __attribute__((weak, alias("MPI_Allreduce")));
int MPI_Comm_rank(int comm, int *rank) { *rank = comm & 1; return 0; }
int MPI_Wait(int *req, void *st) { (void)st; *req = 0; return 0; }
int ncclAllReduce(const void *s, void *r, unsigned long n, int dt, int op, void *comm, void *st) { return (int)n + dt + op + (s == r) + (comm == st); }
void fabtrace_step_begin(unsigned long step) { (void)step; }
int fttest_work_v1(int x) { return x + 1; }
int fttest_work_v2(int x) { return x + 2; }
__asm__(".symver fttest_work_v1,fttest_work@VERS_1");
__asm__(".symver fttest_work_v2,fttest_work@@VERS_2");
EOF
printf 'VERS_1 { global: fttest_work; };\nVERS_2 { global: fttest_work; } VERS_1;\n' >"$tmp/mpi.map"
cat >"$tmp/gloo.cc" <<'EOF'
namespace gloo {
struct AllreduceOptions { int n; };
struct BroadcastOptions { int n; };
void allreduce(AllreduceOptions &o) { o.n++; }
void broadcast(BroadcastOptions &o) { o.n--; }
namespace transport { namespace tcp { struct Pair { void send(int x); }; void Pair::send(int x) { (void)x; } } }
template <typename T> void reduce(T *p, int n) { for (int i = 0; i < n; i++) p[i] += p[i]; }
template void reduce<float>(float *, int);
template void reduce<double>(double *, int);
}
EOF
printf 'int MPI_Init(int *c, char ***v) { return c && v ? 0 : 1; }\nint main(int c, char **v) { return MPI_Init(&c, &v); }\n' \
	>"$tmp/exe.c"
small=(-Os -Wl,-z,noseparate-code)
gcc "${small[@]}" -shared -fPIC -nostdlib -Wl,--version-script="$tmp/mpi.map" -Wl,-soname,libmpifuzz.so.12 \
	-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib:/opt/x' -Wl,--no-as-needed -lc -o "$elf/libmpifuzz.so" "$tmp/mpi.c"
strip -o "$elf/libmpifuzz-stripped.so" "$elf/libmpifuzz.so"
g++ "${small[@]}" -shared -fPIC -nostdlib -Wl,-soname,libgloofuzz.so.0 -Wl,--disable-new-dtags \
	-Wl,-rpath,'${ORIGIN}' -o "$elf/libgloofuzz.so" "$tmp/gloo.cc"
gcc "${small[@]}" -no-pie -Wl,-rpath,/usr/lib/fuzz -o "$elf/exe-nopie" "$tmp/exe.c"
strip --strip-debug "$elf/exe-nopie"

# ---- the rest
python3 tests/fuzz/mkcorpus.py "$corpus"
chmod 644 "$corpus"/*/*
du -sh "$corpus"
