// SPDX-License-Identifier: GPL-2.0-or-later
/* The parts every event of the Perfetto trace shares (viz/perfetto.h). */
#include <stdint.h>

#include "lib/json.h"
#include "viz/perfetto.h"

void pf_ev_begin(struct pf *p, char ph, const char *scope, uint32_t pid, uint32_t tid)
{
	const char phs[2] = { ph, '\0' };

	json_break(&p->j);
	json_object_begin(&p->j);
	json_kv_string(&p->j, "ph", phs);
	if (scope)
		json_kv_string(&p->j, "s", scope);
	json_kv_u64(&p->j, "pid", pid);
	json_kv_u64(&p->j, "tid", tid);
}

void pf_ts(struct pf *p, const char *key, uint64_t ts)
{
	json_kv_fixed(&p->j, key, model__rel_ns(p->m, ts), 3);
}

void pf_meta(struct pf *p, uint32_t pid, uint32_t tid, const char *what, const char *name, long sort)
{
	pf_ev_begin(p, 'M', NULL, pid, tid);
	json_kv_string(&p->j, "name", what);
	json_kv_object_begin(&p->j, "args");
	if (name)
		json_kv_string(&p->j, "name", name);
	else
		json_kv_i64(&p->j, "sort_index", sort);
	json_object_end(&p->j);
	json_object_end(&p->j);
}
