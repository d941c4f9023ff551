# fabtrace — top-level build.  `make help` lists the targets.
#
#   make            build build/fabtrace, the BPF objects and the lab tools
#   make deps       install the Debian packages the build and tests need
#   make demo       deps + build + run the built-in lab scenario and report it
#   make test       deps + build + every test (unit, then integration as root)
#   make SANITIZE=1 test   the same under ASan+UBSan (builds into build/san)
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
MPICC    ?= mpicc
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
LDLIBS   += -lbpf -lelf -lz
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=address,undefined
endif

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS      := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

APP_SRCS   := $(wildcard userspace/*.c probes/*.c rdma/*.c viz/*.c)
MAIN_SRC   := userspace/main.c
LIB_SRCS   := $(filter-out $(MAIN_SRC),$(APP_SRCS))
LIB_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
MAIN_OBJ   := $(BUILD)/obj/$(MAIN_SRC:.c=.o)
LIB        := $(BUILD)/libfabtrace.a

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

TOOL_SRCS  := $(filter-out tools/allreduce.c,$(wildcard tools/*.c))
TOOL_BINS  := $(patsubst tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))
MPI_BINS   := $(if $(wildcard tools/allreduce.c),$(BUILD)/tools/allreduce)

.PHONY: all deps demo test unit integration check-reliability bench clean install uninstall help lint
.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(SKELS) $(BUILD)/vmlinux.h

all: $(BUILD)/fabtrace $(TOOL_BINS) $(MPI_BINS) $(UNIT_BINS)

help:
	@sed -n '1,12p' Makefile | sed 's/^# \{0,1\}//'

deps:
	$(Q)tools/deps.sh

# ---- BPF side: vmlinux.h from the running kernel, CO-RE objects, skeletons
$(BUILD)/vmlinux.h: | $(BUILD)
	$(call msg,BTF,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/fabtrace.h $(wildcard bpf/*.bpf.h) $(BUILD)/vmlinux.h | $(BUILD)
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

# ---- tests and lab tools
$(BUILD)/tests/%: tests/unit/%.c $(LIB) | $(BUILD)
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -lcmocka -o $@

$(BUILD)/tools/allreduce: tools/allreduce.c tools/toolargs.h | $(BUILD)
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $< -o $@

$(BUILD)/tools/%: tools/%.c tools/toolargs.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@

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

lint:
	$(Q)tools/lint.sh

clean:
	$(call msg,CLEAN,build)
	$(Q)rm -rf build

install: $(BUILD)/fabtrace
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/fabtrace $(DESTDIR)$(PREFIX)/bin/fabtrace

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/fabtrace

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
