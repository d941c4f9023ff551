// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Counter semantics: parsing sysfs counter text, classifying counter names,
 * deltas with wrap/reset handling.  See rdma/counters.h.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "lib/util.h"

#define TWO32 (1ull << 32)

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int ctr__parse(const char *text, size_t len, uint64_t *out)
{
	size_t i = 0, end;
	uint64_t v = 0;
	unsigned base = 10;

	if (!text)
		return -EINVAL;
	/* stop at a NUL too: callers may pass a whole buffer */
	end = strnlen(text, len);
	while (i < end && is_space(text[i]))
		i++;
	while (end > i && is_space(text[end - 1]))
		end--;
	if (i == end)
		return -EINVAL;
	/* "N/A (no PMA)" from the kernel's PMA attributes; other drivers say just "N/A" */
	if (end - i >= 3 && (text[i] == 'N' || text[i] == 'n') && text[i + 1] == '/' &&
	    (text[i + 2] == 'A' || text[i + 2] == 'a'))
		return -ENODATA;
	if (end - i > 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	for (; i < end; i++) {
		char c = text[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -EINVAL; /* overflow */
		v = v * base + d;
	}
	*out = v;
	return 0;
}

struct ctr_rule {
	const char *glob;
	uint16_t cls, flags;
};

/*
 * ports/N/counters/: the PMA PortCounters of the IB spec.  The error
 * counters are 4 to 16 bits wide and port_xmit_wait is 32 bits; they
 * saturate rather than wrap on real hardware.  The data and packet
 * counters are 32-bit without the extended counters and 64-bit with them
 * (mlx5 has them), so they carry no width flag and ctr__delta decides by
 * value.  port_xmit_data/port_rcv_data count octets divided by 4.
 */
static const struct ctr_rule pma_rules[] = {
	{ "port_xmit_data", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
	{ "port_rcv_data", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
	{ "port_xmit_data_64", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
	{ "port_rcv_data_64", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
	{ "*_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_packets_64", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "port_xmit_wait", FT_CLS_CONGESTION, FT_CTRF_TICKS | FT_CTRF_WIDTH32 },
	{ "port_xmit_discards", FT_CLS_DISCARD, FT_CTRF_WIDTH32 },
	{ "symbol_error", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "link_downed", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "link_error_recovery", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "port_rcv_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "port_rcv_remote_physical_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "port_rcv_switch_relay_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "local_link_integrity_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "excessive_buffer_overrun_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "VL15_dropped", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "port_xmit_constraint_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
	{ "port_rcv_constraint_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
};

/*
 * ports/N/hw_counters/: driver counters.  mlx5 names first (Q counters are
 * 32-bit in firmware and wrap; the congestion counters are 64-bit), then
 * loose patterns that also catch other drivers (bnxt_re, irdma, efa).
 * Completion errors that follow exhausted retries count as retransmission
 * and loss; flush and remote-access errors are application errors (other).
 */
static const struct ctr_rule hw_rules[] = {
	{ "np_cnp_sent", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "rp_cnp_handled", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "rp_cnp_ignored", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "np_ecn_marked_roce_packets", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "cc_rx_ce_pkts", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "cc_rx_cnp_pkts", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "cc_tx_cnp_pkts", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "out_of_sequence", FT_CLS_RETRANS, 0 },
	{ "packet_seq_err", FT_CLS_RETRANS, 0 },
	{ "local_ack_timeout_err", FT_CLS_RETRANS, 0 },
	{ "implied_nak_seq_err", FT_CLS_RETRANS, 0 },
	{ "duplicate_request", FT_CLS_RETRANS, 0 },
	{ "rnr_nak_retry_err", FT_CLS_RETRANS, 0 },
	{ "roce_adp_retrans", FT_CLS_RETRANS, 0 },
	{ "roce_adp_retrans_to", FT_CLS_RETRANS, 0 },
	{ "roce_slow_restart*", FT_CLS_RETRANS, 0 },
	{ "req_cqe_error", FT_CLS_RETRANS, 0 },
	{ "resp_cqe_error", FT_CLS_RETRANS, 0 },
	{ "req_transport_retries_exceeded", FT_CLS_RETRANS, 0 },
	{ "req_rnr_retries_exceeded", FT_CLS_RETRANS, 0 },
	{ "out_of_buffer", FT_CLS_DISCARD, 0 },
	{ "rx_icrc_encapsulated", FT_CLS_LINK_ERR, 0 },
	{ "*_cqe_flush_error", FT_CLS_OTHER, 0 },
	{ "*_remote_*", FT_CLS_OTHER, 0 },
	{ "*_local_length_error", FT_CLS_OTHER, 0 },
	{ "rx_*_requests", FT_CLS_OTHER, 0 },
	{ "rdma_*_bytes", FT_CLS_DATA, FT_CTRF_BYTES },
	{ "rdma_*_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*cnp*", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "*ecn*", FT_CLS_CONGESTION, 0 },
	{ "*retrans*", FT_CLS_RETRANS, 0 },
	{ "*retry*", FT_CLS_RETRANS, 0 },
	{ "*seq_err*", FT_CLS_RETRANS, 0 },
	{ "*out_of_seq*", FT_CLS_RETRANS, 0 },
	{ "*timeout*", FT_CLS_RETRANS, 0 },
	{ "*discard*", FT_CLS_DISCARD, 0 },
	{ "*drop*", FT_CLS_DISCARD, 0 },
	{ "*_bytes", FT_CLS_DATA, FT_CTRF_BYTES },
	{ "*_pkts", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
};

/*
 * ETHTOOL_GSTATS names (mlx5 first in mind: rx_prio3_pause_duration,
 * tx_pause_storm_error_events, rx_buffer_passed_thres_phy,
 * rx_prio3_cong_discard, rx_prio3_marked, rx_discards_phy).  Order
 * matters: pause before discard, discard before data.  Pause durations are
 * microseconds.  Size histograms (rx_1519_to_2047_bytes_phy) count packets.
 */
static const struct ctr_rule eth_rules[] = {
	{ "*pause*duration*", FT_CLS_PAUSE, FT_CTRF_USEC },
	{ "tx_pause_storm_*", FT_CLS_PAUSE, 0 },
	{ "*pause*", FT_CLS_PAUSE, 0 },
	{ "*pfc*", FT_CLS_PAUSE, 0 },
	{ "*xon*", FT_CLS_PAUSE, 0 },
	{ "*xoff*", FT_CLS_PAUSE, 0 },
	{ "*_thres*", FT_CLS_BUFFER, 0 },
	{ "*discard*", FT_CLS_DISCARD, 0 },
	{ "*drop*", FT_CLS_DISCARD, 0 },
	{ "*out_of_buffer*", FT_CLS_DISCARD, 0 },
	{ "*buffer_overflow*", FT_CLS_DISCARD, 0 },
	{ "*missed*", FT_CLS_DISCARD, 0 },
	{ "*ecn*", FT_CLS_CONGESTION, 0 },
	{ "*marked*", FT_CLS_CONGESTION, 0 },
	{ "*cnp*", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
	{ "*crc*", FT_CLS_LINK_ERR, 0 },
	{ "*fcs*", FT_CLS_LINK_ERR, 0 },
	{ "*symbol_err*", FT_CLS_LINK_ERR, 0 },
	{ "link_down*", FT_CLS_LINK_ERR, 0 },
	{ "*retrans*", FT_CLS_RETRANS, 0 },
	{ "*[0-9]_bytes*", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_bytes", FT_CLS_DATA, FT_CTRF_BYTES },
	{ "*_bytes_*", FT_CLS_DATA, FT_CTRF_BYTES },
	{ "*_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_packets_*", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_pkts", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_pkts_*", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_frames", FT_CLS_DATA, FT_CTRF_PACKETS },
	{ "*_frames_*", FT_CLS_DATA, FT_CTRF_PACKETS },
};

static bool apply(const struct ctr_rule *r, size_t n, const char *name, uint16_t *cls, uint16_t *flags)
{
	for (size_t i = 0; i < n; i++) {
		if (fnmatch(r[i].glob, name, 0) == 0) {
			*cls = r[i].cls;
			*flags = r[i].flags;
			return true;
		}
	}
	return false;
}

#define APPLY(rules, name, cls, flags) apply(rules, sizeof(rules) / sizeof((rules)[0]), name, cls, flags)

void ctr__classify(unsigned kind, const char *name, uint16_t *cls, uint16_t *flags)
{
	*cls = FT_CLS_OTHER;
	*flags = 0;
	if (!name)
		return;
	switch (kind) {
	case FT_CTR_PORT_COUNTERS:
		if (!APPLY(pma_rules, name, cls, flags))
			APPLY(hw_rules, name, cls, flags);
		break;
	case FT_CTR_PORT_HW:
		APPLY(hw_rules, name, cls, flags);
		break;
	case FT_CTR_ETHTOOL:
		APPLY(eth_rules, name, cls, flags);
		break;
	default:
		break;
	}
}

const char *ctr__class_name(unsigned cls)
{
	static const char *const names[FT_CLS_MAX] = {
		[FT_CLS_OTHER] = "other",         [FT_CLS_DATA] = "data",
		[FT_CLS_CONGESTION] = "congestion", [FT_CLS_RETRANS] = "retrans",
		[FT_CLS_DISCARD] = "discard",     [FT_CLS_LINK_ERR] = "link_err",
		[FT_CLS_PAUSE] = "pause",         [FT_CLS_BUFFER] = "buffer",
	};

	return cls < FT_CLS_MAX ? names[cls] : "other";
}

const char *ctr__unit_name(unsigned flags)
{
	return flags & FT_CTRF_BYTES ? "bytes" : flags & FT_CTRF_USEC ? "us" : "count";
}

uint64_t ctr__delta(uint64_t prev, uint64_t cur, uint16_t flags, unsigned *dflags)
{
	unsigned df = 0;
	uint64_t d;

	if (prev == FT_CTR_NA || cur == FT_CTR_NA) {
		d = 0;
		df = CTR_DELTA_NA;
	} else if (cur >= prev) {
		d = cur - prev;
		/* a PMA counter stuck at its maximum has stopped counting */
		if ((flags & FT_CTRF_WIDTH32) && cur == UINT32_MAX)
			df = CTR_DELTA_SAT;
	} else if (prev < TWO32) {
		/* backwards from a value that fits 32 bits (cur < prev < 2^32) */
		uint64_t wrapped = cur + TWO32 - prev;
		/* a saturated PMA counter leaving 2^32-1 was cleared, it did not wrap */
		bool saturated = (flags & FT_CTRF_WIDTH32) && prev == UINT32_MAX;

		if (!saturated && wrapped < (1ull << 31)) {
			d = wrapped;
			df = CTR_DELTA_WRAP32;
		} else {
			d = cur;
			df = CTR_DELTA_RESET;
		}
	} else {
		/* wrapped growth 2^64 - (prev - cur) is below 2^63 when it went back by more */
		uint64_t back = prev - cur;

		if (back > (1ull << 63)) {
			d = UINT64_MAX - back + 1;
			df = CTR_DELTA_WRAP64;
		} else {
			d = cur;
			df = CTR_DELTA_RESET;
		}
	}
	if (dflags)
		*dflags = df;
	return d;
}

uint64_t ctr__scale(uint64_t raw, uint16_t flags)
{
	if (!(flags & FT_CTRF_DIV4))
		return raw;
	return raw > UINT64_MAX / 4 ? UINT64_MAX : raw * 4;
}

bool ctr__glob_match(const char *list, const char *name)
{
	const char *p = list, *it;
	size_t len;

	if (!list || !name)
		return false;
	/* entries may be padded with spaces: "*pause*, *pfc*" */
	while (list_next(&p, &it, &len)) {
		char glob[256];

		if (len && len < sizeof(glob)) {
			memcpy(glob, it, len);
			glob[len] = '\0';
			if (fnmatch(glob, name, 0) == 0)
				return true;
		}
	}
	return false;
}

/*
 * What a congestion trace wants from a NIC by default, out of the hundreds
 * of stats a modern NIC has: pause/PFC frames, durations, transitions and
 * storms; buffer-threshold events; discards and drops (including mlx5's
 * rx_out_of_buffer); ECN marks.  "all" or "*" selects every stat.
 */
const char ctr__default_nic_filter[] =
	"*pause*,*pfc*,tx_pause_storm_*,*_thres*,*discard*,*drop*,*out_of_buffer*,*ecn*,*marked*";
