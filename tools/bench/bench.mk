# Benchmarks (included by the top-level Makefile): `make bench` installs the
# extra tools (tools/deps.sh bench), builds fabtrace and the helpers below,
# and runs tools/bench/run.sh, which rewrites the tables in docs/performance.md.
#   BENCH_QUICK=1  short smoke run        BENCH=NAME  one benchmark only
# The helpers live in $(BUILD)/bench, never in bpf/ (whose wildcard feeds the
# main binary's skeletons).

BENCH_BINS := $(BUILD)/bench/floor $(BUILD)/bench/udpgen

.PHONY: bench-deps bench-bins
bench-deps:
	$(Q)tools/deps.sh bench

bench-bins: $(BENCH_BINS)

bench: bench-deps all $(BENCH_BINS)
	$(Q)BUILD=$(BUILD) tools/bench/run.sh

# empty programs on fabtrace's hooks (the floor of each hook)
$(BUILD)/bench/floor.bpf.o: tools/bench/floor.bpf.c $(BUILD)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -I$(BUILD) -c $< -o $@

$(BUILD)/bench/floor.skel.h: $(BUILD)/bench/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/bench/floor: tools/bench/floor.c probes/coverage.h probes/tcx.h $(BUILD)/bench/floor.skel.h $(LIB)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) -I$(BUILD)/bench -I. $< $(LIB) -lbpf -lelf -lz -o $@

$(BUILD)/bench/udpgen: tools/bench/udpgen.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) $< -o $@
