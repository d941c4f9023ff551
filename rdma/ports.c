// SPDX-License-Identifier: GPL-2.0-or-later
/* RDMA port discovery and the hw_counters lifespan (see ports.h). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"
#include "ports.h"
#include "sysattr.h"
#include "verbs.h"
#include "lib/util.h"

#define MAX_SPECS 64

struct dev_spec {
	char dev[64];
	unsigned port;              /* 0 = every port */
	bool used;
};

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Split the -D list ("mlx5_0,mlx5_1:1") into SPECS: their count or -EINVAL. */
static int parse_devices(const char *list, struct dev_spec *specs, char *err, size_t errlen)
{
	const char *p = list, *it;
	size_t len;
	int n = 0;

	while (list_next(&p, &it, &len)) {
		if (len) {
			char item[80];
			char *colon;

			if (len >= sizeof(item) || n == MAX_SPECS) {
				snprintf(err, errlen, "--rdma-devices %s: too long a device list", list);
				return -EINVAL;
			}
			memcpy(item, it, len);
			item[len] = '\0';
			memset(&specs[n], 0, sizeof(specs[n]));
			colon = strchr(item, ':');
			if (colon) {
				char *end;
				unsigned long port;

				*colon = '\0';
				errno = 0;
				port = strtoul(colon + 1, &end, 10);
				if (!colon[1] || *end || errno || port == 0 || port > 255 || colon[1] == '-' ||
				    colon[1] == '+') {
					snprintf(err, errlen, "--rdma-devices %s:%s: bad port number (1..255)", item, colon + 1);
					return -EINVAL;
				}
				specs[n].port = (unsigned)port;
			}
			if (!item[0] || strlen(item) >= sizeof(specs[n].dev)) {
				snprintf(err, errlen, "--rdma-devices %s: bad device name", list);
				return -EINVAL;
			}
			sysattr__copy(specs[n].dev, item, sizeof(specs[n].dev));
			n++;
		}
	}
	if (n == 0) {
		snprintf(err, errlen, "--rdma-devices '%s': no device named", list);
		return -EINVAL;
	}
	return n;
}

/* "mlx5_0, mlx5_1" into BUF. */
static void join(char *buf, size_t len, char **names, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (used >= len && len > 4)
		strcpy(buf + len - 4, "...");
}

static uint8_t link_layer_of(const char *text)
{
	if (!strcmp(text, "Ethernet"))
		return FT_LL_ETHERNET;
	if (!strcmp(text, "InfiniBand"))
		return FT_LL_IB;
	return FT_LL_UNKNOWN;
}

static bool is_dir(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (sysattr__path(path, sizeof(path), dir, name))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (sysattr__path(path, sizeof(path), dir, name))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Fill P from sysfs: device DEVDIR, port P->dir. */
static void port_from_sysfs(struct port_info *p, const char *devdir)
{
	struct ft_rdma_port *r = &p->rec;
	char buf[128];
	unsigned v, width;
	uint32_t mbps;
	uint64_t guid, ls;

	if (sysattr__read_in(p->dir, "state", buf, sizeof(buf)) >= 0 && sysattr__parse_state(buf, &v) == 0)
		r->state = (uint8_t)v;
	if (sysattr__read_in(p->dir, "phys_state", buf, sizeof(buf)) >= 0 &&
	    sysattr__parse_state(buf, &v) == 0)
		r->phys_state = (uint8_t)v;
	if (sysattr__read_in(p->dir, "link_layer", buf, sizeof(buf)) >= 0)
		r->link_layer = link_layer_of(buf);
	if (sysattr__read_in(p->dir, "rate", buf, sizeof(buf)) >= 0) {
		sysattr__copy(r->rate, buf, sizeof(r->rate));
		if (sysattr__parse_rate(buf, &width, &mbps) == 0) {
			r->width = (uint8_t)width;
			r->rate_mbps = mbps;
		}
	}
	/* the netdev of GID 0 (RoCE); unreadable for IB or an empty GID slot */
	if (sysattr__read_in(p->dir, "gid_attrs/ndevs/0", buf, sizeof(buf)) > 0 && strlen(buf) < IFNAMSIZ &&
	    !strchr(buf, '/') && !strchr(buf, ' '))
		sysattr__copy(r->netdev, buf, sizeof(r->netdev));
	if (sysattr__read_in(devdir, "node_guid", buf, sizeof(buf)) >= 0 && sysattr__parse_guid(buf, &guid) == 0)
		r->node_guid = guid;
	if (sysattr__read_in(devdir, "fw_ver", buf, sizeof(buf)) >= 0)
		sysattr__copy(r->fw_ver, buf, sizeof(r->fw_ver));
	if (sysattr__read_in(devdir, "hca_type", buf, sizeof(buf)) >= 0)
		sysattr__copy(r->hca_type, buf, sizeof(r->hca_type));
	if (is_dir(p->dir, "counters"))
		r->flags |= FT_PORT_COUNTERS;
	if (is_dir(p->dir, "hw_counters"))
		r->flags |= FT_PORT_HW_COUNTERS;
	p->has_lifespan = is_file(p->dir, "hw_counters/lifespan");
	if (p->has_lifespan && sysattr__read_in(p->dir, "hw_counters/lifespan", buf, sizeof(buf)) >= 0 &&
	    ctr__parse(buf, strlen(buf), &ls) == 0 && ls <= UINT32_MAX)
		r->lifespan_ms = (uint32_t)ls;
}

/* Overlay what libibverbs says (the real /sys only). */
static void port_from_verbs(struct port_info *p, struct verbs *v)
{
	struct ft_rdma_port *r = &p->rec;
	struct verbs_port vp;

	if (!v || verbs__port(v, r->dev, r->port_num, &vp) != 0)
		return;
	r->flags |= FT_PORT_VERBS;
	r->state = vp.state;
	r->phys_state = vp.phys_state;
	if (vp.link_layer != FT_LL_UNKNOWN)
		r->link_layer = vp.link_layer;
	if (vp.width)
		r->width = vp.width;
	/* speeds this libibverbs does not know keep the kernel's sysfs rate */
	if (vp.rate_mbps)
		r->rate_mbps = vp.rate_mbps;
	r->active_mtu = vp.active_mtu;
	if (!r->netdev[0] && vp.ndev_ifindex) {
		char name[IF_NAMESIZE];

		if (if_indextoname(vp.ndev_ifindex, name))
			sysattr__copy(r->netdev, name, sizeof(r->netdev));
	}
}

static int cmp_version(const char *a, const char *b)
{
	return strverscmp(a, b);
}

static int add_port(struct port_info **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct port_info *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*n)++;
	return 0;
}

int ports__scan(const struct port_scan_opts *o, struct port_info **out, size_t *n, size_t *ndevs,
		char *err, size_t errlen)
{
	struct dev_spec specs[MAX_SPECS];
	char ibdir[PATH_MAX], have[256];
	char **devs = NULL;
	struct port_info *v = NULL;
	size_t ndev = 0, cnt = 0, cap = 0;
	struct verbs *verbs = NULL;
	int nspecs = 0, rc = 0;

	*out = NULL;
	*n = 0;
	*ndevs = 0;
	if (o->devices) {
		nspecs = parse_devices(o->devices, specs, err, errlen);
		if (nspecs < 0)
			return nspecs;
	}
	if (sysattr__path(ibdir, sizeof(ibdir), o->root, "class/infiniband") ||
	    sysattr__list(ibdir, false, cmp_version, &devs, &ndev) != 0)
		ndev = 0;
	for (int i = 0; i < nspecs; i++) {
		size_t d;

		for (d = 0; d < ndev; d++)
			if (!strcmp(devs[d], specs[i].dev))
				break;
		if (d == ndev) {
			if (ndev)
				join(have, sizeof(have), devs, ndev);
			else
				snprintf(have, sizeof(have), "none under %.200s", ibdir);
			snprintf(err, errlen, "--rdma-devices %s: no such RDMA device (have: %s)", specs[i].dev, have);
			rc = -ENODEV;
			goto out;
		}
	}
	if (ndev && o->use_verbs)
		verbs = verbs__open();
	for (size_t d = 0; d < ndev; d++) {
		char devdir[PATH_MAX], portsdir[PATH_MAX];
		char **ports = NULL;
		size_t nports = 0;
		bool want_dev = nspecs == 0;

		for (int i = 0; i < nspecs; i++)
			if (!strcmp(specs[i].dev, devs[d]))
				want_dev = true;
		if (!want_dev)
			continue;
		if (sysattr__path(devdir, sizeof(devdir), ibdir, devs[d]) ||
		    sysattr__path(portsdir, sizeof(portsdir), devdir, "ports") ||
		    sysattr__list(portsdir, false, cmp_version, &ports, &nports) != 0)
			nports = 0;
		for (size_t k = 0; k < nports; k++) {
			struct port_info *p;
			char pdir[PATH_MAX];
			unsigned long num;
			bool want = nspecs == 0;

			if (!is_number(ports[k]))
				continue;
			num = strtoul(ports[k], NULL, 10);
			if (num == 0 || num > 255)
				continue;
			for (int i = 0; i < nspecs; i++) {
				if (!strcmp(specs[i].dev, devs[d]) && (!specs[i].port || specs[i].port == num)) {
					want = true;
					specs[i].used = true;
				}
			}
			if (!want || sysattr__path(pdir, sizeof(pdir), portsdir, ports[k]))
				continue;
			rc = add_port(&v, &cnt, &cap);
			if (rc) {
				sysattr__free_list(ports, nports);
				goto out;
			}
			p = &v[cnt - 1];
			p->rec.hdr.type = FT_REC_RDMA_PORT;
			p->rec.hdr.size = sizeof(p->rec);
			p->rec.port_id = (uint32_t)(cnt - 1);
			p->rec.port_num = (uint32_t)num;
			sysattr__copy(p->rec.dev, devs[d], sizeof(p->rec.dev));
			sysattr__copy(p->dir, pdir, sizeof(p->dir));
			port_from_sysfs(p, devdir);
			port_from_verbs(p, verbs);
			if (p->rec.netdev[0] && o->resolve_netdev &&
			    o->resolve_netdev(o->resolve_ctx, p->rec.netdev, &p->rec.netdev_netns,
					      &p->rec.netdev_ifindex) != 0) {
				p->rec.netdev_netns = 0;
				p->rec.netdev_ifindex = 0;
			}
		}
		/* a port asked for by number that the device does not have */
		for (int i = 0; i < nspecs; i++) {
			if (strcmp(specs[i].dev, devs[d]) != 0 || !specs[i].port || specs[i].used)
				continue;
			if (nports)
				join(have, sizeof(have), ports, nports);
			else
				snprintf(have, sizeof(have), "none");
			snprintf(err, errlen, "--rdma-devices %s:%u: no such port (%s has: %s)", specs[i].dev, specs[i].port,
				 specs[i].dev, have);
			sysattr__free_list(ports, nports);
			rc = -ENODEV;
			goto out;
		}
		sysattr__free_list(ports, nports);
	}
	*ndevs = ndev;
out:
	verbs__close(verbs);
	sysattr__free_list(devs, ndev);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n = cnt;
	return 0;
}

static int write_lifespan(const char *dir, uint32_t ms)
{
	char path[PATH_MAX], text[16];
	int fd, len, rc = 0;
	ssize_t w;

	if (sysattr__path(path, sizeof(path), dir, "hw_counters/lifespan"))
		return -ENAMETOOLONG;
	/* O_TRUNC: a no-op on sysfs, keeps a fixture file clean */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(text, sizeof(text), "%u\n", ms);
	w = write(fd, text, (size_t)len);
	if (w < 0)
		rc = -errno;
	else if (w != len)
		rc = -EIO;
	if (close(fd) != 0 && !rc)
		rc = -errno;
	return rc;
}

int ports__set_lifespan(struct port_info *p, uint32_t ms, char *err, size_t errlen)
{
	struct ft_rdma_port *r = &p->rec;
	char buf[64];
	uint64_t v;
	int rc;

	if (!p->has_lifespan)
		return 0;
	rc = sysattr__read_in(p->dir, "hw_counters/lifespan", buf, sizeof(buf));
	if (rc < 0 || ctr__parse(buf, strlen(buf), &v) != 0 || v > UINT32_MAX) {
		rc = rc < 0 ? rc : -EINVAL;
		snprintf(err, errlen, "%s/%u: cannot read hw_counters/lifespan: %s", r->dev, r->port_num,
			 strerror(-rc));
		return rc;
	}
	r->lifespan_ms = (uint32_t)v;
	if (v == ms)
		return 0;
	rc = write_lifespan(p->dir, ms);
	if (rc) {
		snprintf(err, errlen, "%s/%u: cannot set hw_counters/lifespan to %u ms: %s%s", r->dev,
			 r->port_num, ms, strerror(-rc), rc == -EACCES || rc == -EPERM ? " (needs root)" : "");
		return rc;
	}
	r->flags |= FT_PORT_LIFESPAN_SET;
	r->lifespan_set_ms = ms;
	p->lifespan_changed = true;
	p->lifespan_set_ns = sysattr__now_ns();
	/* the kernel keeps jiffies: record what it will really use */
	if (sysattr__read_in(p->dir, "hw_counters/lifespan", buf, sizeof(buf)) >= 0 &&
	    ctr__parse(buf, strlen(buf), &v) == 0 && v > 0 && v <= UINT32_MAX)
		r->lifespan_set_ms = (uint32_t)v;
	return 0;
}

int ports__restore_lifespan(struct port_info *p)
{
	int rc;

	if (!p->lifespan_changed)
		return 0;
	rc = write_lifespan(p->dir, p->rec.lifespan_ms);
	if (rc == 0)
		p->lifespan_changed = false;
	return rc;
}
