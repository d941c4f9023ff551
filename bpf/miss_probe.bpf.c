// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Feature probe (probes/recursion_misses.c): does this kernel count the runs
 * of a raw tracepoint program that it skips because the program would
 * recurse on its CPU?  Run once through BPF_PROG_TEST_RUN, this program
 * prints; the print's tracepoint runs it again (attached, so through the
 * kernel's recursion guard, nested once), and that run prints again: the
 * guard skips the third run, and a kernel that counts adds one to the
 * program's recursion_misses.  Two lines go to the trace buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("raw_tp/bpf_trace_printk")
int miss_probe(void *ctx)
{
	bpf_printk("fabtrace: feature probe (are recursing runs counted?)");
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
