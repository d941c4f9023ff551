// SPDX-License-Identifier: GPL-2.0-or-later
/* Does the kernel count skipped probe runs?  (recursion_misses.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "miss_probe.skel.h"
#include "probes/recursion_misses.h"

/*
 * The patch of this project's development VM (docs/known-issues.md) skips
 * programs in PID 1's context without counting a miss; it adds an
 * `init_owned` flag to struct bpf_prog_aux, which the kernel's BTF shows.
 */
static bool kernel_skips_silently(const struct btf *btf)
{
	__s32 id = btf__find_by_name_kind(btf, "bpf_prog_aux", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; m && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), "init_owned"))
			return true;
	return false;
}

/* 1: a recursion was skipped and counted; 0: skipped uncounted; -errno: cannot tell. */
static int try_recursion(const struct btf *btf, char *why, size_t whylen)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct miss_probe_bpf *s;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int err;

	/*
	 * Kernels without the bpf_trace_printk tracepoint (its BTF typedef)
	 * would also print a debug-kernel banner when a program that prints
	 * loads: do not try there.
	 */
	if (btf__find_by_name_kind(btf, "btf_trace_bpf_trace_printk", BTF_KIND_TYPEDEF) <= 0) {
		snprintf(why, whylen, "no bpf_trace_printk tracepoint to try it on");
		return -ENOENT;
	}
	s = miss_probe_bpf__open();
	if (!s) {
		err = -errno;
		snprintf(why, whylen, "the probe program did not open: %s", strerror(-err));
		return err;
	}
	err = miss_probe_bpf__load(s);
	if (err) {
		snprintf(why, whylen, "the probe program did not load: %s", strerror(-err));
		goto out;
	}
	err = miss_probe_bpf__attach(s);
	if (err) {
		snprintf(why, whylen, "cannot attach to the bpf_trace_printk tracepoint: %s", strerror(-err));
		goto out;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(s->progs.miss_probe), &run);
	if (err) {
		err = -errno;
		snprintf(why, whylen, "cannot test-run a raw tracepoint program: %s", strerror(-err));
		goto out;
	}
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(bpf_program__fd(s->progs.miss_probe), &info, &len);
	if (err) {
		err = -errno;
		snprintf(why, whylen, "cannot read the program's info: %s", strerror(-err));
		goto out;
	}
	err = info.recursion_misses > 0;
	if (!err)
		snprintf(why, whylen, "the kernel skips recursing runs without counting them");
out:
	miss_probe_bpf__destroy(s);
	return err;
}

/* Tried once per process: the answer does not change. */
static struct {
	int tried;            /* -1: not yet; 1: every skip is counted */
	bool pid1;            /* recursions are counted; the patch skips PID 1's context */
	char why[160];
} answer = { .tried = -1 };

static void try_once(void)
{
	struct btf *btf;

	if (answer.tried >= 0)
		return;
	btf = btf__load_vmlinux_btf();
	answer.tried = 0;
	if (!btf) {
		snprintf(answer.why, sizeof(answer.why), "cannot read the kernel's BTF: %s", strerror(errno));
	} else if (try_recursion(btf, answer.why, sizeof(answer.why)) == 1) {
		if (kernel_skips_silently(btf)) {
			answer.pid1 = true;
			snprintf(answer.why, sizeof(answer.why),
				 "it counts recursions, but its BTF shows a patch that skips programs "
				 "in PID 1's context uncounted: docs/known-issues.md");
		} else {
			answer.tried = 1;
		}
	}
	btf__free(btf);
}

bool recursion_misses__counted(char *why, size_t whylen)
{
	try_once();
	if (why && whylen)
		snprintf(why, whylen, "%s", answer.why);
	return answer.tried == 1;
}

bool recursion_misses__all_but_pid1(void)
{
	try_once();
	return answer.pid1;
}
