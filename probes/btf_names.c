// SPDX-License-Identifier: GPL-2.0-or-later
/* Names taken from the running kernel's BTF rather than copied tables. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>

#include "probes/btf_names.h"
#include "lib/util.h"

int btf_drop_reasons(int (*fn)(void *ctx, const struct ft_rec_hdr *rec), void *ctx)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id, ret = 0;

	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	if (id < 0) {
		ret = -ENOENT;
		goto out;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t) && !ret; i++, e++) {
		const char *name = btf__name_by_offset(btf, e->name_off);
		struct ft_drop_reason r = { .hdr = { FT_REC_DROP_REASON, sizeof(r), 0 } };

		if (!name)
			continue;
		if (!strncmp(name, "SKB_DROP_REASON_", 16))
			name += 16;
		else if (!strncmp(name, "SKB_", 4))
			name += 4;
		r.reason = (__u32)e->val;
		str_copy(r.name, name, sizeof(r.name));
		ret = fn(ctx, &r.hdr);
	}
out:
	btf__free(btf);
	return ret;
}
