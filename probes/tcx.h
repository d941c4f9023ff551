/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcx: a BPF program attached to one device's ingress through a BPF link
 * (kernel 6.6+), which the device's packets run and no other device's.  The
 * link goes when its fd is closed, also when the process dies.
 */
#ifndef FABTRACE_TCX_H
#define FABTRACE_TCX_H
#include <errno.h>
#include <bpf/bpf.h>

/* enum bpf_attach_type's BPF_TCX_INGRESS (uapi 6.6): the build's headers may predate it */
#define FT_BPF_TCX_INGRESS 46

/* Attach PROG_FD to the ingress of IFINDEX (in this thread's netns): the link's fd, or -errno. */
static inline int tcx_attach_ingress(int prog_fd, unsigned ifindex)
{
	int fd = bpf_link_create(prog_fd, (int)ifindex, (enum bpf_attach_type)FT_BPF_TCX_INGRESS, NULL);

	return fd < 0 ? -errno : fd;
}

#endif
