// SPDX-License-Identifier: GPL-2.0-or-later
/* The congestion-control sysctls (sysctl_config.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "probes/sysctl_config.h"

/* Grouped as docs/configuration.md explains them. */
static const char *const sysctls[] = {
	/* which congestion control, and which may be chosen */
	"net.ipv4.tcp_congestion_control",
	"net.ipv4.tcp_available_congestion_control",
	"net.ipv4.tcp_allowed_congestion_control",
	/* ECN: negotiated (1), accepted (2), off (0); fallback on broken paths */
	"net.ipv4.tcp_ecn",
	"net.ipv4.tcp_ecn_fallback",
	/* the qdisc new interfaces get */
	"net.core.default_qdisc",
	/* socket buffers: what a window can reach */
	"net.core.rmem_default",
	"net.core.rmem_max",
	"net.core.wmem_default",
	"net.core.wmem_max",
	"net.ipv4.tcp_rmem",
	"net.ipv4.tcp_wmem",
	"net.ipv4.tcp_mem",
	"net.ipv4.tcp_moderate_rcvbuf",
	"net.ipv4.tcp_adv_win_scale",
	"net.ipv4.tcp_notsent_lowat",
	/* how much a flow puts in the queues below it */
	"net.ipv4.tcp_limit_output_bytes",
	"net.ipv4.tcp_autocorking",
	"net.ipv4.tcp_pacing_ss_ratio",
	"net.ipv4.tcp_pacing_ca_ratio",
	"net.ipv4.tcp_tso_win_divisor",
	"net.ipv4.tcp_min_tso_segs",
	/* after idle, and what a connection remembers */
	"net.ipv4.tcp_slow_start_after_idle",
	"net.ipv4.tcp_no_metrics_save",
	/* path MTU */
	"net.ipv4.tcp_mtu_probing",
	"net.ipv4.tcp_base_mss",
	/* loss detection and recovery */
	"net.ipv4.tcp_sack",
	"net.ipv4.tcp_dsack",
	"net.ipv4.tcp_timestamps",
	"net.ipv4.tcp_window_scaling",
	"net.ipv4.tcp_recovery",
	"net.ipv4.tcp_early_retrans",
	"net.ipv4.tcp_frto",
	"net.ipv4.tcp_reordering",
	"net.ipv4.tcp_retries2",
	"net.ipv4.tcp_rto_min_us",
	/* the receive path */
	"net.core.netdev_max_backlog",
	"net.core.netdev_budget",
	"net.core.busy_poll",
	"net.core.busy_read",
};

size_t sysctl_config__count(void)
{
	return sizeof(sysctls) / sizeof(sysctls[0]);
}

const char *sysctl_config__name(size_t i)
{
	return i < sysctl_config__count() ? sysctls[i] : NULL;
}

/* ROOT/net/ipv4/tcp_ecn's text in BUF, blanks made single spaces and trimmed: 0 or -errno. */
static int read_one(const char *root, const char *name, char *buf, size_t len)
{
	char path[256], raw[512];
	size_t o = 0;
	ssize_t n;
	int fd, w;

	w = snprintf(path, sizeof(path), "%s/%s", root, name);
	if (w < 0 || (size_t)w >= sizeof(path))
		return -ENAMETOOLONG;
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '.')
			*p = '/';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, raw, sizeof(raw) - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	raw[n] = '\0';
	for (const char *p = raw; *p && o + 1 < len; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			if (o && buf[o - 1] != ' ')
				buf[o++] = ' ';
			continue;
		}
		buf[o++] = *p;
	}
	if (o && buf[o - 1] == ' ')
		o--;
	buf[o] = '\0';
	return 0;
}

int sysctl_config__read(const char *root, cfg_kv_fn kv, void *ctx)
{
	char v[512];
	int ret = 0;

	if (!root)
		root = "/proc/sys";
	for (size_t i = 0; !ret && i < sysctl_config__count(); i++) {
		int err = read_one(root, sysctls[i], v, sizeof(v));

		if (err == -ENOENT)
			continue;
		ret = err ? kv(ctx, sysctls[i], NULL, err) : kv(ctx, sysctls[i], v, 0);
	}
	return ret;
}
