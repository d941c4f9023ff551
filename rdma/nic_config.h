/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NIC's congestion settings as sysfs and debugfs show them, for the
 * configuration records (docs/configuration.md): for each netdev under
 * ROOT/class/net, every file below its ecn/ directory (MLNX_OFED's DCQCN:
 * ecn/roce_np/ and ecn/roce_rp/ enable per priority, cnp_dscp,
 * cnp_802p_prio, the rate-control parameters) and its qos/ directory
 * (trust, pfc, buffers), and the mlx5 driver's debugfs cc_params of the PCI
 * device behind it (ROOT/kernel/debug/mlx5/PCI/cc_params/: rp_*, np_*).
 * Nothing is parsed: every file is one setting, named by its path below
 * the netdev ("ecn/roce_np/cnp_dscp", "cc_params/rp_ai_rate").
 */
#ifndef FABTRACE_RDMA_NIC_CONFIG_H
#define FABTRACE_RDMA_NIC_CONFIG_H

/*
 * One setting of NETDEV (a PCI name such as "0000:01:00.0" when debugfs
 * names a device no netdev leads to): KEY = VALUE, blanks and line breaks
 * made single spaces; or VALUE NULL and ERR (-errno) when the file cannot
 * be read.  Non-zero stops the walk, which returns it.
 */
typedef int (*nic_config_fn)(void *ctx, const char *netdev, const char *key, const char *value, int err);

/*
 * Walk ROOT (a sysfs root: "/sys", or a fixture tree) as above, netdevs by
 * name, files by path, at most NIC_CONFIG_MAX_FILES per netdev.  The number
 * of settings passed (0 on a host without such a NIC), or what FN returned.
 */
#define NIC_CONFIG_MAX_FILES 1024
int nic_config__read(const char *root, nic_config_fn fn, void *ctx);

#endif
