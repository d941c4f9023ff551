/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcx: a BPF program attached to one device's ingress (or egress) through a
 * BPF link (kernel 6.6+), which the device's packets run and no other
 * device's.  The link goes when its fd is closed, also when the process dies.
 */
#ifndef FABTRACE_TCX_H
#define FABTRACE_TCX_H
#include <errno.h>
#include <bpf/bpf.h>

/* enum bpf_attach_type's BPF_TCX_INGRESS/EGRESS (uapi 6.6): the build's headers may predate them */
#define FT_BPF_TCX_INGRESS 46
#define FT_BPF_TCX_EGRESS 47

/* Attach PROG_FD to IFINDEX (in this thread's netns) at ATTACH: the link's fd, or -errno. */
static inline int tcx_attach(int prog_fd, unsigned ifindex, int attach)
{
	int fd = bpf_link_create(prog_fd, (int)ifindex, (enum bpf_attach_type)attach, NULL);

	return fd < 0 ? -errno : fd;
}

static inline int tcx_attach_ingress(int prog_fd, unsigned ifindex)
{
	return tcx_attach(prog_fd, ifindex, FT_BPF_TCX_INGRESS);
}

#endif
