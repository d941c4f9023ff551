# fabtrace — top-level build.  `make help` lists the targets.
#
#   make            build build/fabtrace, the BPF objects and the lab tools
#   make deps       install the Debian packages the build and tests need
#   make demo       deps + build + run the built-in lab scenario and report it
#   make test       deps + build + every test (unit, fuzz targets' short run, integration as root)
#   make fuzz       fuzz every target FUZZ_TIME=600 s (clang libFuzzer; docs/fuzzing.md)
#   make SANITIZE=1 test   the same under ASan+UBSan (builds into build/san)
#   make bench      deps + build + benchmarks, rewrites docs/performance.md (BENCH_QUICK=1)
#   make V=1        show the full commands
#   make install PREFIX=/usr/local DESTDIR=

PREFIX   ?= /usr/local
DESTDIR  ?=
SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD    ?= build/san
else
BUILD    ?= build
endif

CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
MPICC    ?= mpicc.mpich
MPICC_OMPI ?= mpicc.openmpi
ARCH     := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE $(WARN) -I$(BUILD) -I. -MMD -MP
LDLIBS   += -lbpf -lelf -lz -lzstd -lstdc++ -lm -libverbs
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=address,undefined
endif

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS      := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

APP_SRCS   := $(wildcard lib/*.c probes/*.c rdma/*.c userspace/*/*.c viz/*.c)
MAIN_SRC   := userspace/cli/main.c
LIB_SRCS   := $(filter-out $(MAIN_SRC),$(APP_SRCS))
LIB_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
MAIN_OBJ   := $(BUILD)/obj/$(MAIN_SRC:.c=.o)
LIB        := $(BUILD)/libfabtrace.a

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

TOOL_SRCS  := $(filter-out tools/allreduce.c,$(wildcard tools/*.c))
TOOL_BINS  := $(patsubst tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS)) $(BUILD)/tools/synthcap
MPI_BINS   := $(if $(wildcard tools/allreduce.c),$(BUILD)/tools/allreduce)
# the same workload built with Open MPI, where it is installed (lab.sh mpi --mpi openmpi)
MPI_BINS   += $(if $(shell command -v $(MPICC_OMPI) 2>/dev/null),$(BUILD)/tools/allreduce.openmpi)
# workloads: the marker library (probes/marker), the Gloo workload (only with Debian's
# libgloo-dev), the stand-in libnccl.so.2 and the --phase test library (tests/lib).
# Own flags, never the sanitizers: these libraries are loaded by unsanitized programs.
MARKER_LIB := $(BUILD)/libfabtrace_marker.so
# the NCCL profiler plugin (probes/nccl_profiler): NCCL_PROFILER_PLUGIN names it
NCCL_PLUGIN := $(BUILD)/libnccl-profiler-fabtrace.so
GLOO_BINS  := $(if $(wildcard /usr/include/gloo/allreduce.h),$(BUILD)/tools/gloo_allreduce)
TEST_LIBS  := $(BUILD)/tests/lib/libnccl.so.2 $(BUILD)/tests/lib/libftphase_test.so \
	      $(BUILD)/tests/lib/libtorch_cuda.so
WL_CFLAGS  := -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) -fno-ipa-icf

.PHONY: all deps demo test unit integration check-reliability bench clean install uninstall help lint regen-goldens fuzz fuzz-build fuzz-smoke
.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(SKELS) $(BUILD)/vmlinux.h

all: $(BUILD)/fabtrace $(TOOL_BINS) $(MPI_BINS) $(UNIT_BINS)
all: $(MARKER_LIB) $(GLOO_BINS) $(TEST_LIBS) $(BUILD)/man/.stamp $(NCCL_PLUGIN)

help:
	@sed -n '1,13p' Makefile | sed 's/^# \{0,1\}//'

deps:
	$(Q)tools/deps.sh

# ---- BPF side: vmlinux.h from the running kernel, CO-RE objects, skeletons
$(BUILD)/vmlinux.h: | $(BUILD)
	$(call msg,BTF,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(BUILD)/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-I$(BUILD) -Ibpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# ---- userspace
$(BUILD)/obj/%.o: %.c $(SKELS) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/fabtrace: $(MAIN_OBJ) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- viz/html: the timeline's template, CSS and JS, embedded as NUL-terminated C arrays
# The script is kept in parts, one concern each, that are one script (parts 2-6
# are the body of main() opened in part 1): joined in this order, each part's
# leading `// ` header lines dropped.
TIMELINE_JS := $(addprefix viz/html/timeline/,1-decode.js 2-model.js 3-view.js 4-draw.js 5-panels.js 6-input.js)
$(BUILD)/viz_html/timeline.js: $(TIMELINE_JS) | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)awk 'FNR == 1 { head = 1 } head && /^\/\/( |$$)/ { next } { head = 0; print }' \
		$(TIMELINE_JS) >$@.tmp && mv $@.tmp $@

HTML_ASSETS := viz/html/template.html viz/html/timeline.css $(BUILD)/viz_html/timeline.js
$(BUILD)/viz_html_assets.h: $(HTML_ASSETS) | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)for f in $(HTML_ASSETS); do \
		printf 'static const unsigned char viz_%s[] = {\n' "$$(basename $$f | tr '.-' '__')"; \
		xxd -i <$$f || exit 1; \
		printf ', 0x00\n};\n'; \
	done >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/viz/html.o: $(BUILD)/viz_html_assets.h

# ---- tests and lab tools
# shared test headers (tests/unit/records.h: record builders)
$(UNIT_BINS): $(wildcard tests/unit/*.h)
# test_ncclprof compiles the plugin's source into itself
$(BUILD)/tests/test_ncclprof: $(wildcard probes/nccl_profiler/*.c probes/nccl_profiler/*.h)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) | $(BUILD)
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -lcmocka -o $@

$(BUILD)/tools/allreduce: tools/allreduce.c tools/toolargs.h probes/marker/fabtrace_marker.h $(MARKER_LIB) | $(BUILD)
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $< $(MARKER_LIB) -Wl,-rpath,'$$ORIGIN/..' -o $@

$(BUILD)/tools/allreduce.openmpi: tools/allreduce.c tools/toolargs.h probes/marker/fabtrace_marker.h $(MARKER_LIB) | $(BUILD)
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC_OMPI) -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $< $(MARKER_LIB) -Wl,-rpath,'$$ORIGIN/..' -o $@

# marker API: build/libfabtrace_marker.so -> .so.1 (soname); only the 4 markers exported
$(BUILD)/libfabtrace_marker.so.1: probes/marker/fabtrace_marker.c probes/marker/fabtrace_marker.h | $(BUILD)
	$(call msg,CC-SO,$@)
	$(Q)$(CC) $(WL_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libfabtrace_marker.so.1 $< -o $@

$(MARKER_LIB): $(BUILD)/libfabtrace_marker.so.1
	$(Q)ln -sf libfabtrace_marker.so.1 $@

NCCL_PLUGIN_SRCS := $(wildcard probes/nccl_profiler/*.c)
$(NCCL_PLUGIN): $(NCCL_PLUGIN_SRCS) $(wildcard probes/nccl_profiler/*.h) bpf/phase.h bpf/fabtrace.h | $(BUILD)
	$(call msg,CC-SO,$@)
	$(Q)$(CC) $(WL_CFLAGS) -I. -fPIC -fvisibility=hidden -shared -pthread \
		-Wl,-soname,libnccl-profiler-fabtrace.so $(NCCL_PLUGIN_SRCS) -o $@

# the stand-in for NCCL's side of the profiler ABI (tests/integration/test_nccl_plugin.sh)
$(BUILD)/tools/nccl_profiler_driver: tools/nccl_profiler_driver.c tools/toolargs.h \
		probes/nccl_profiler/ncclprof_abi.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -I. $< -ldl -pthread -o $@

# stand-in NCCL (no GPU here: real NCCL cannot run) and the --phase test library
$(BUILD)/tests/lib/libnccl.so.2: tests/lib/fake_nccl.c tests/lib/fake_nccl.h | $(BUILD)
	$(call msg,CC-SO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libnccl.so.2 $< -o $@

# the same stand-in under another name: NCCL linked statically into a framework's library
$(BUILD)/tests/lib/libtorch_cuda.so: tests/lib/fake_nccl.c tests/lib/fake_nccl.h | $(BUILD)
	$(call msg,CC-SO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libtorch_cuda.so $< -o $@

$(BUILD)/tools/nccl_dlopen: tools/nccl_dlopen.c tools/toolargs.h tests/lib/fake_nccl.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) $< -ldl -o $@

$(BUILD)/tests/lib/libftphase_test.so: tests/lib/ftphase_test.c | $(BUILD)
	$(call msg,CC-SO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libftphase_test.so $< -o $@

$(BUILD)/tools/nccl_sim: tools/nccl_sim.c tools/toolargs.h tests/lib/fake_nccl.h probes/marker/fabtrace_marker.h \
		$(BUILD)/tests/lib/libnccl.so.2 $(MARKER_LIB) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) $< $(BUILD)/tests/lib/libnccl.so.2 $(MARKER_LIB) \
		-Wl,-rpath,'$$ORIGIN/..:$$ORIGIN/../tests/lib' -o $@

$(BUILD)/tools/phase_workload: tools/phase_workload.c tools/toolargs.h probes/marker/fabtrace_marker.h \
		$(MARKER_LIB) $(BUILD)/tests/lib/libftphase_test.so | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) $< $(MARKER_LIB) -ldl -Wl,-rpath,'$$ORIGIN/..' -o $@

$(BUILD)/tools/gloo_allreduce: tools/gloo_allreduce.cc tools/toolargs.h probes/marker/fabtrace_marker.h \
		$(MARKER_LIB) | $(BUILD)
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -g -std=c++17 -D_GNU_SOURCE $(WARN) $< $(MARKER_LIB) -lgloo -pthread \
		-Wl,-rpath,'$$ORIGIN/..' -o $@

# synthcap and capshift write captures with the real capture writer: they link the library
$(BUILD)/tools/capshift: tools/capshift.c $(LIB) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

SYNTHCAP_SRCS := $(wildcard tools/synthcap/*.c)
$(BUILD)/tools/synthcap: $(SYNTHCAP_SRCS) $(wildcard tools/synthcap/*.h) $(LIB) | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(SYNTHCAP_SRCS) $(LIB) $(LDLIBS) -o $@

$(BUILD)/tools/%: tools/%.c tools/toolargs.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@

# ---- fuzzing (docs/fuzzing.md): libFuzzer targets tests/fuzz/fuzz_*.c, built with clang
# into $(BUILD)/fuzz/ with their own copy of the library (ASan+UBSan, coverage).
# Not part of `all`: tests/run.sh fuzz builds them (make fuzz-build).
FUZZ_CC     ?= $(CLANG)
FUZZ_SRCS   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS   := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS))
FUZZ_LIB    := $(BUILD)/fuzz/libfabtrace.a
FUZZ_CFLAGS := -O1 -gline-tables-only -std=c11 -D_GNU_SOURCE $(WARN) -I$(BUILD) -I. -MMD -MP \
	-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wno-gnu-variable-sized-type-not-at-end
FUZZ_TIME   ?= 600

$(BUILD)/fuzz/obj/%.o: %.c $(SKELS) | $(BUILD)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/obj/viz/html.o: $(BUILD)/viz_html_assets.h

$(FUZZ_LIB): $(FUZZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB)
	$(call msg,FUZZ-LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -DFZ_SRCDIR='"$(CURDIR)"' -fsanitize=fuzzer $< $(FUZZ_LIB) $(LDLIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# long runs: every target FUZZ_TIME seconds (FUZZ_TARGETS="fuzz_x ..." for some)
fuzz: $(FUZZ_BINS)
	$(Q)BUILD=$(BUILD) FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run.sh long $(FUZZ_TARGETS)

# what tests/run.sh fuzz runs: replay corpus + regress, then FUZZ_SMOKE_SECS each
fuzz-smoke: $(FUZZ_BINS)
	$(Q)BUILD=$(BUILD) tests/fuzz/run.sh smoke $(FUZZ_TARGETS)

-include $(shell find $(BUILD)/fuzz/obj -name '*.d' 2>/dev/null)

$(BUILD):
	$(Q)mkdir -p $@

# ---- what users run
demo: deps all
	$(Q)tools/demo.sh $(BUILD)

test: deps all
	$(Q)BUILD=$(BUILD) tests/run.sh

unit: all
	$(Q)BUILD=$(BUILD) tests/run.sh unit

integration: all
	$(Q)BUILD=$(BUILD) tests/run.sh integration

# the timeline goldens (tests/fixtures/viz/) after an intended change of a renderer
regen-goldens: $(BUILD)/fabtrace $(BUILD)/tools/synthcap
	$(Q)BUILD=$(BUILD) tests/viz/goldens.sh regen

lint: $(SKELS) $(BUILD)/viz_html_assets.h
	$(Q)BUILD=$(BUILD) tools/lint.sh

# benchmarks: make bench (BENCH_QUICK=1, BENCH=NAME); rules and helpers in tools/bench/
include tools/bench/bench.mk

clean:
	$(call msg,CLEAN,build)
	$(Q)rm -rf build

# ---- man pages, one per command, made from the binary's own --help (tools/mkman.py)
$(BUILD)/man/.stamp: $(BUILD)/fabtrace tools/mkman.py
	$(call msg,MAN,$(BUILD)/man)
	$(Q)rm -rf $(BUILD)/man.tmp && mkdir -p $(BUILD)/man.tmp
	$(Q)tools/mkman.py $(BUILD)/fabtrace >$(BUILD)/man.tmp/fabtrace.1
	$(Q)for c in $$($(BUILD)/fabtrace --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do \
		tools/mkman.py $(BUILD)/fabtrace $$c >$(BUILD)/man.tmp/fabtrace-$$c.1 || exit 1; \
	done
	$(Q)rm -rf $(BUILD)/man && mv $(BUILD)/man.tmp $(BUILD)/man && touch $@

install: $(BUILD)/fabtrace $(MARKER_LIB) $(NCCL_PLUGIN) $(BUILD)/man/.stamp
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/fabtrace $(DESTDIR)$(PREFIX)/bin/fabtrace
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 tools/completion/fabtrace.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fabtrace
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(BUILD)/libfabtrace_marker.so.1 $(DESTDIR)$(PREFIX)/lib/libfabtrace_marker.so.1
	ln -sf libfabtrace_marker.so.1 $(DESTDIR)$(PREFIX)/lib/libfabtrace_marker.so
	install -m 0644 probes/marker/fabtrace_marker.h $(DESTDIR)$(PREFIX)/include/fabtrace_marker.h
	install -d $(DESTDIR)$(PREFIX)/lib/fabtrace
	install -m 0755 $(NCCL_PLUGIN) $(DESTDIR)$(PREFIX)/lib/fabtrace/libnccl-profiler-fabtrace.so
	@if [ -z "$(DESTDIR)" ]; then ldconfig 2>/dev/null || true; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fabtrace
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/fabtrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/fabtrace-*.1
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/fabtrace
	rm -f $(DESTDIR)$(PREFIX)/lib/libfabtrace_marker.so $(DESTDIR)$(PREFIX)/lib/libfabtrace_marker.so.1
	rm -f $(DESTDIR)$(PREFIX)/include/fabtrace_marker.h
	rm -f $(DESTDIR)$(PREFIX)/lib/fabtrace/libnccl-profiler-fabtrace.so
	-rmdir $(DESTDIR)$(PREFIX)/lib/fabtrace 2>/dev/null

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
