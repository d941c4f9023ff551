// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The phase probes' features (phaseprobe_state.h, fabtrace features):
 * a uprobe self-test on a function of this program (uprobe_multi, else
 * perf uprobes, with bpf cookies), and which variant of each tracepoint
 * hook loads and attaches on this kernel.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/catalog.h"
#include "probes/bpflog.h"
#include "probes/phaseprobe_state.h"
#include "lib/util.h"

const struct ph_hook ph_hooks[PH_HOOK_MAX] = {
	[PH_HOOK_FORK] = { "proc_fork", "sched_process_fork",
			   { "proc_fork_btf", "proc_fork_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_EXEC] = { "proc_exec", "sched_process_exec",
			   { "proc_exec_btf", "proc_exec_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_EXIT] = { "proc_exit", "sched_process_exit",
			   { "proc_exit_btf", "proc_exit_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_SEND] = { "sock_send", "sock_send_length",
			   { "sock_send_btf", "sock_send_raw" }, { "tp_btf", "raw_tp" } },
	[PH_HOOK_RECV] = { "sock_recv", "sock_recv_length",
			   { "sock_recv_btf", "sock_recv_raw" }, { "tp_btf", "raw_tp" } },
};

/* ---- features ---- */

/* The skeleton, opened (not loaded).  0 or -errno. */
int ph_skel_open(struct phase_bpf **out)
{
#ifdef __clang_analyzer__
	/*
	 * The generated phase_bpf__create_skeleton() frees its allocations on
	 * error through libbpf, which the analyzer cannot see into; it would
	 * report a leak in build/phase.skel.h.  Analyse our code with a plain
	 * allocation instead.
	 */
	*out = calloc(1, sizeof(**out));
#else
	*out = phase_bpf__open();
#endif
	return *out ? 0 : -errno;
}

/* A function of this program to put a uprobe on (the features self-test). */
__attribute__((noinline, used)) int phaseprobe_selftest_target(uint64_t v);
__attribute__((noinline, used)) int phaseprobe_selftest_target(uint64_t v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
	return (int)(v & 1);
}

/* File and offset of the code at ADDR, from /proc/self/maps. */
static int self_offset(uintptr_t addr, char *path, size_t len, uint64_t *off)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	/* "start-end perms offset dev inode path" */
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *file;
		unsigned long start, end, foff;

		start = strtoul(s, &s, 16);
		if (*s++ != '-')
			continue;
		end = strtoul(s, &s, 16);
		s += strcspn(s, " ");         /* perms */
		s += strspn(s, " ");
		s += strcspn(s, " ");
		foff = strtoul(s, &s, 16);
		file = strchr(s, '/');
		if (addr < start || addr >= end || !file)
			continue;
		file[strcspn(file, "\n")] = 0;
		str_copy(path, file, len);
		*off = addr - start + foff;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

struct selftest {
	int seen;
	uint64_t want;
};

static int selftest_sample(void *ctx, void *data, size_t size)
{
	struct selftest *t = ctx;
	const struct ft_phase *r = data;

	if (size >= sizeof(*r) && r->hdr.type == FT_REC_PHASE && r->slot == 7 && r->count == t->want)
		t->seen |= 1;
	if (size >= sizeof(*r) && r->hdr.type == FT_REC_PHASE && r->slot == 8 && r->end_ns >= r->start_ns)
		t->seen |= 2;
	return 0;
}

/*
 * uprobe + uretprobe with cookies on our own function, as uprobe_multi
 * links (MULTI) or perf uprobes: do the records come back?
 */
static int uprobe_selftest(bool multi, char *why, size_t whylen)
{
	struct ph_slot_cfg mark = {0}, call = {0};
	struct selftest t = { 0, 0xfab7aceull };
	struct bpf_link *l[3] = {0};
	int fds[3] = { -1, -1, -1 };
	struct ring_buffer *rb = NULL;
	struct phase_bpf *s;
	struct bpf_program *prog;
	char path[PATH_MAX];
	uint64_t off = 0, cookie;
	__u32 slot, tgid = (__u32)getpid(), one = 1;
	int err = 0;

	if (self_offset((uintptr_t)phaseprobe_selftest_target, path, sizeof(path), &off)) {
		snprintf(why, whylen, "cannot find this program's code in /proc/self/maps");
		return -ENOENT;
	}
	if (ph_skel_open(&s)) {
		snprintf(why, whylen, "open: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, s->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(s->progs.phase_entry, true);
	bpf_program__set_autoload(s->progs.phase_exit, true);
	if (multi) {
		bpf_program__set_expected_attach_type(s->progs.phase_entry, PH_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(s->progs.phase_exit, PH_BPF_TRACE_UPROBE_MULTI);
	}
	bpf_map__set_max_entries(s->maps.events, 4096 * 4);
	bpflog__clear();
	err = phase_bpf__load(s);
	if (err) {
		snprintf(why, whylen, "load: %s%s%s", strerror(-err), bpflog__sep(), bpflog__last());
		goto out;
	}
	catalog__generic_cfg(&call);
	mark = call;
	mark.kind = PH_K_MARK;
	mark.count = (struct ph_field){ 0, PH_F_64, 0 };
	slot = 7;
	bpf_map_update_elem(bpf_map__fd(s->maps.slots), &slot, &mark, BPF_ANY);
	slot = 8;
	bpf_map_update_elem(bpf_map__fd(s->maps.slots), &slot, &call, BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(s->maps.traced), &tgid, &one, BPF_ANY);
	if (s->bss) /* mmap()ed global data: NULL only if the kernel cannot map it */
		s->bss->armed = true;
	for (int i = 0; i < 3 && !err; i++) {
		bool ret = i == 2;

		cookie = i == 0 ? 7 : 8;
		if (multi) {
			fds[i] = ph_multi_attach(ret ? s->progs.phase_exit : s->progs.phase_entry, path,
					      &off, &cookie, 1, ret);
			err = fds[i] < 0 ? fds[i] : 0;
		} else {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie, .retprobe = ret);

			l[i] = bpf_program__attach_uprobe_opts(ret ? s->progs.phase_exit :
							       s->progs.phase_entry, -1, path, off, &uo);
			err = l[i] ? 0 : -errno;
		}
		if (err)
			snprintf(why, whylen, "%s attach: %s%s%s", ret ? "uretprobe" : "uprobe",
				 strerror(-err), bpflog__sep(), bpflog__last());
	}
	if (err)
		goto out;
	rb = ring_buffer__new(bpf_map__fd(s->maps.events), selftest_sample, &t, NULL);
	if (!rb) {
		err = -errno;
		snprintf(why, whylen, "ring buffer: %s", strerror(-err));
		goto out;
	}
	phaseprobe_selftest_target(t.want);
	ring_buffer__consume(rb);
	if (t.seen != 3) {
		err = -ENOTSUP;
		snprintf(why, whylen, "uprobe attached but no %s came back (bpf cookies unsupported?)",
			 (t.seen & 1) ? "return record" : "entry record");
	}
out:
	ring_buffer__free(rb);
	for (int i = 0; i < 3; i++) {
		bpf_link__destroy(l[i]);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	phase_bpf__destroy(s);
	return err;
}

/* Load and attach one hook variant alone; 0 if it works here. */
static int try_hook(int h, int v, char *why, size_t whylen)
{
	struct bpf_program *prog, *mine = NULL;
	struct phase_bpf *s;
	struct bpf_link *link;
	int err;

	if (ph_skel_open(&s)) {
		snprintf(why, whylen, "open: %s", strerror(errno));
		return -errno;
	}
	bpf_object__for_each_program(prog, s->obj) {
		bool me = strcmp(bpf_program__name(prog), ph_hooks[h].progs[v]) == 0;

		bpf_program__set_autoload(prog, me);
		if (me)
			mine = prog;
	}
	bpf_map__set_max_entries(s->maps.events, 4096 * 4);
	bpflog__clear();
	err = phase_bpf__load(s);
	if (err) {
		snprintf(why, whylen, "%s load: %s%s%s", ph_hooks[h].kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	link = bpf_program__attach(mine);
	if (!link) {
		err = -errno;
		snprintf(why, whylen, "%s attach: %s%s%s", ph_hooks[h].kinds[v], strerror(-err),
			 bpflog__sep(), bpflog__last());
		goto out;
	}
	bpf_link__destroy(link);
out:
	phase_bpf__destroy(s);
	return err;
}

void ph_choose_hooks(int *chosen, struct phase_feature *st)
{
	const char *only = getenv("FABTRACE_VARIANTS");

	for (int h = 0; h < PH_HOOK_MAX; h++) {
		struct phase_feature *f = &st[1 + h];

		chosen[h] = -1;
		*f = (struct phase_feature){ .name = ph_hooks[h].name, .hook = ph_hooks[h].tracepoint };
		for (int v = 0; v < 2; v++) {
			char why[160];

			if (only && *only && strcmp(only, ph_hooks[h].kinds[v]) != 0)
				continue;
			if (try_hook(h, v, why, sizeof(why)) == 0) {
				chosen[h] = v;
				f->variant = ph_hooks[h].kinds[v];
				f->why[0] = 0;
				break;
			}
			if (!f->why[0])
				str_copy(f->why, why, sizeof(f->why));
		}
		if (chosen[h] < 0 && !f->why[0])
			snprintf(f->why, sizeof(f->why), "no %s variant (FABTRACE_VARIANTS)", only);
	}
}

int phaseprobe__probe_features(struct phase_feature st[PH_FEAT_MAX], bool verbose)
{
	int chosen[PH_HOOK_MAX];

	bpflog__init(verbose);
	st[0] = (struct phase_feature){ .name = "uprobe", .hook = "uprobe+uretprobe, bpf cookie" };
	if (uprobe_selftest(true, st[0].why, sizeof(st[0].why)) == 0)
		st[0].variant = "uprobe_multi";
	else if (uprobe_selftest(false, st[0].why, sizeof(st[0].why)) == 0)
		st[0].variant = "uprobe";
	ph_choose_hooks(chosen, st);
	return 0;
}
