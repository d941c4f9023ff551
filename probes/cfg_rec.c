// SPDX-License-Identifier: GPL-2.0-or-later
/* Building and reading configuration records (cfg_rec.h). */
#include <errno.h>
#include <string.h>

#include "probes/cfg_rec.h"

static size_t bounded_len(const char *s, size_t max)
{
	return s ? strnlen(s, max) : 0;
}

struct ft_config *cfgrec__build(void *buf, const struct ft_config *proto, const char *key,
				const char *value)
{
	struct ft_config *c = buf;
	size_t kl = bounded_len(key, FT_CFG_KEY_MAX), vl = bounded_len(value, FT_CFG_VALUE_MAX);
	size_t size = (sizeof(*c) + kl + 1 + vl + 1 + 7) & ~(size_t)7;
	char *p = (char *)buf + sizeof(*c);

	memcpy(c, proto, sizeof(*c));
	memset(p, 0, size - sizeof(*c));
	c->hdr.type = FT_REC_CONFIG;
	c->hdr.size = (uint16_t)size;
	c->key_len = (uint16_t)kl;
	c->value_len = (uint16_t)vl;
	c->pad = 0;
	if (kl)
		memcpy(p, key, kl);
	if (vl)
		memcpy(p + kl + 1, value, vl);
	return c;
}

int cfgrec__parse(const struct ft_rec_hdr *rec, const char **key, const char **value)
{
	const struct ft_config *c = (const void *)rec;
	const char *p = (const char *)rec + sizeof(*c);
	size_t room;

	if (rec->type != FT_REC_CONFIG || rec->size < sizeof(*c))
		return -EINVAL;
	room = rec->size - sizeof(*c);
	if ((size_t)c->key_len + 1 + (size_t)c->value_len + 1 > room)
		return -EINVAL;
	/* each string ends exactly where its length says: no NUL inside, one after */
	if (p[c->key_len] || strnlen(p, c->key_len) != c->key_len)
		return -EINVAL;
	p += c->key_len + 1;
	if (p[c->value_len] || strnlen(p, c->value_len) != c->value_len)
		return -EINVAL;
	*key = (const char *)rec + sizeof(*c);
	*value = p;
	return 0;
}

const char *cfgrec__scope_name(unsigned scope)
{
	static const char *const names[FT_CFG_SCOPE_MAX] = {
		[FT_CFG_NETNS] = "netns", [FT_CFG_IFACE] = "iface", [FT_CFG_QDISC] = "qdisc",
		[FT_CFG_FLOW] = "flow",   [FT_CFG_NIC] = "nic",     [FT_CFG_RANK] = "rank",
	};

	return scope < FT_CFG_SCOPE_MAX ? names[scope] : NULL;
}
