// SPDX-License-Identifier: GPL-2.0-or-later
/* NIC congestion settings from sysfs and debugfs (nic_config.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nic_config.h"
#include "sysattr.h"

/* Directories below a netdev that hold congestion settings (MLNX_OFED's sysfs). */
static const char *const netdev_dirs[] = { "ecn", "qos" };
#define MAX_DEPTH 4

struct walk {
	nic_config_fn fn;
	void *ctx;
	const char *netdev;
	int files;          /* of this netdev */
	int total;
};

/* Line breaks and runs of blanks made one space. */
static void squeeze(char *s)
{
	char *o = s;

	for (const char *p = s; *p; p++) {
		bool blank = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';

		if (blank && (o == s || o[-1] == ' '))
			continue;
		*o++ = blank ? ' ' : *p;
	}
	if (o > s && o[-1] == ' ')
		o--;
	*o = '\0';
}

/* Every file below DIR (its path below the netdev: KEY), then every directory. */
static int walk_dir(struct walk *w, const char *dir, const char *key, int depth)
{
	char **names;
	size_t n;
	int ret = 0;

	if (sysattr__list(dir, true, NULL, &names, &n) == 0) {
		for (size_t i = 0; !ret && i < n && w->files < NIC_CONFIG_MAX_FILES; i++) {
			char path[PATH_MAX], k[PATH_MAX], v[512];
			int len;

			if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path) ||
			    snprintf(k, sizeof(k), "%s/%s", key, names[i]) >= (int)sizeof(k))
				continue;
			w->files++;
			w->total++;
			len = sysattr__read(path, v, sizeof(v));
			if (len < 0) {
				ret = w->fn(w->ctx, w->netdev, k, NULL, len);
				continue;
			}
			squeeze(v);
			ret = w->fn(w->ctx, w->netdev, k, v, 0);
		}
		sysattr__free_list(names, n);
	}
	if (ret || depth >= MAX_DEPTH || sysattr__list(dir, false, NULL, &names, &n))
		return ret;
	for (size_t i = 0; !ret && i < n; i++) {
		char path[PATH_MAX], k[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path) &&
		    snprintf(k, sizeof(k), "%s/%s", key, names[i]) < (int)sizeof(k))
			ret = walk_dir(w, path, k, depth + 1);
	}
	sysattr__free_list(names, n);
	return ret;
}

/* The PCI name of NETDEV's device (the last part of its `device` link), "" when none. */
static void pci_name(const char *root, const char *netdev, char *out, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *slash;

	out[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/class/net/%s/device", root, netdev) >= (int)sizeof(path))
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	if (strlen(slash) < len)
		memcpy(out, slash, strlen(slash) + 1);
}

/* debugfs cc_params of the PCI device PCI, named under NETDEV. */
static int walk_cc_params(struct walk *w, const char *root, const char *pci)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s/kernel/debug/mlx5/%s/cc_params", root, pci) >= (int)sizeof(dir) ||
	    access(dir, R_OK))
		return 0;
	return walk_dir(w, dir, "cc_params", MAX_DEPTH);
}

int nic_config__read(const char *root, nic_config_fn fn, void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };
	char dir[PATH_MAX], **devs = NULL, **pcis = NULL, (*seen)[64] = NULL;
	size_t ndevs = 0, npcis = 0;
	int ret = 0;

	if (snprintf(dir, sizeof(dir), "%s/class/net", root) >= (int)sizeof(dir))
		return 0;
	sysattr__list(dir, false, NULL, &devs, &ndevs);
	if (ndevs && !(seen = calloc(ndevs, sizeof(*seen)))) {
		sysattr__free_list(devs, ndevs);
		return -ENOMEM;
	}
	for (size_t d = 0; !ret && d < ndevs; d++) {
		w.netdev = devs[d];
		w.files = 0;
		for (size_t k = 0; !ret && k < sizeof(netdev_dirs) / sizeof(netdev_dirs[0]); k++) {
			char sub[PATH_MAX];

			if (snprintf(sub, sizeof(sub), "%s/%s/%s", dir, devs[d], netdev_dirs[k]) < (int)sizeof(sub))
				ret = walk_dir(&w, sub, netdev_dirs[k], 1);
		}
		pci_name(root, devs[d], seen[d], sizeof(seen[d]));
		if (!ret && seen[d][0])
			ret = walk_cc_params(&w, root, seen[d]);
	}
	/* debugfs devices no netdev led to: named by their PCI address */
	if (snprintf(dir, sizeof(dir), "%s/kernel/debug/mlx5", root) < (int)sizeof(dir))
		sysattr__list(dir, false, NULL, &pcis, &npcis);
	for (size_t p = 0; !ret && p < npcis; p++) {
		bool known = false;

		for (size_t d = 0; d < ndevs && !known; d++)
			known = !strcmp(seen[d], pcis[p]);
		if (known)
			continue;
		w.netdev = pcis[p];
		w.files = 0;
		ret = walk_cc_params(&w, root, pcis[p]);
	}
	free(seen);
	sysattr__free_list(devs, ndevs);
	sysattr__free_list(pcis, npcis);
	return ret ? ret : w.total;
}
