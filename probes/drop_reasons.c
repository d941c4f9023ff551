// SPDX-License-Identifier: GPL-2.0-or-later
/* Drop reasons that mean congestion (drop_reasons.h). */
#include <stdio.h>
#include <string.h>

#include "probes/btf_names.h"
#include "probes/drop_reasons.h"
#include "lib/json.h"

bool drop_reason__congestion(const char *name)
{
	/* no room: qdiscs and AQMs, the CPU backlog, a NIC ring, a socket's buffers, TCP's
	 * out-of-order queue under memory pressure, a tc policer */
	static const char *const exact[] = {
		"QDISC_DROP", "QDISC_OVERLIMIT", "QDISC_CONGESTED", "CAKE_FLOOD", "FQ_BAND_LIMIT",
		"FQ_FLOW_LIMIT", "DUALPI2_STEP_DROP", "CPU_BACKLOG", "FULL_RING", "SOCKET_RCVBUFF",
		"SOCKET_BACKLOG", "TCP_OFOMERGE", "TCP_OFO_QUEUE_PRUNE", "TC_EGRESS", "TC_INGRESS",
	};

	if (!name)
		return false;
	/* qdisc reasons of kernels newer than this list, but not the ingress hook's policy drops */
	if (!strncmp(name, "QDISC_", 6) && strcmp(name, "QDISC_INGRESS") != 0)
		return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return false;
}

bool drop_reason__duplicate(const char *name)
{
	/* the receiver had it: data it already held (a retransmit that was not needed),
	 * or a segment PAWS found older than what it had seen */
	static const char *const exact[] = { "TCP_OLD_DATA", "TCP_RFC7323_PAWS", "TCP_OLD_SEQUENCE" };

	for (size_t i = 0; name && i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return false;
}

struct print_ctx {
	struct json *j;
	unsigned n, cong;
};

static int print_one(void *ctx, const struct ft_rec_hdr *rec)
{
	struct print_ctx *p = ctx;
	const struct ft_drop_reason *r = (const void *)rec;
	bool cong = drop_reason__congestion(r->name);

	p->n++;
	p->cong += cong;
	if (p->j) {
		json_object_begin(p->j);
		json_kv_u64(p->j, "id", r->reason);
		json_kv_string(p->j, "name", r->name);
		json_kv_bool(p->j, "congestion", cong);
		json_object_end(p->j);
	} else {
		printf("  %-4u %-32s %s\n", r->reason, r->name, cong ? "congestion (evidence)" : "-");
	}
	return 0;
}

int drop_reasons__print(bool json)
{
	struct print_ctx p = { 0 };
	struct json j;
	int err;

	if (json) {
		json_init(&j, stdout, false);
		p.j = &j;
		json_object_begin(&j);
		json_key(&j, "drop_reasons");
		json_array_begin(&j);
	} else {
		printf("Drop reasons of this kernel (enum skb_drop_reason from its BTF) and how a verdict takes them:\n");
	}
	err = btf_drop_reasons(print_one, &p);
	if (json) {
		json_array_end(&j);
		json_kv_u64(&j, "congestion", p.cong);
		json_object_end(&j);
		json_finish(&j);
	} else if (!err) {
		printf("%u reasons, %u count as congestion; the others are shown in reports, never counted\n",
		       p.n, p.cong);
	}
	return err;
}
